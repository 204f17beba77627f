import { expect, it } from 'vitest';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { labelInputs } from '../../../../src/forms/labelled-inputs.ts';
import { ACTIONS } from '../../../../src/slack/kit/ids.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import { buildRunNowConfirmation } from '../../../../src/slack/schedules/run-now-confirm.ts';
import { mrkdwnTexts } from '../../../support/block-texts.ts';

it('Run now asks first with the runbook, masked inputs, the proxy and the owner', () => {
  const spec = parseInputSchema(
    JSON.stringify({
      type: 'object',
      properties: { database: { type: 'string', title: 'Database' }, password: { type: 'string', format: 'password' } },
    }),
  );
  const card = buildRunNowConfirmation({
    scheduleId: 's-1',
    runbookName: 'Postgres Vacuum <!here>',
    inputs: labelInputs(spec, { database: 'billing', password: 'hunter2' }),
    proxy: { id: 'proxy-prod', name: 'Prod proxy' },
    owner: { userId: 'U02BOB' },
    cron: '0 2 * * *',
    cronEnglish: 'At 02:00',
    someoneElses: true,
  });
  const text = mrkdwnTexts(card.blocks).join('\n');
  expect(text).toContain('Run *Postgres Vacuum &lt;!here&gt;* now, outside its schedule `0 2 * * *` (At 02:00)?');
  expect(text).toContain('someone else’s schedule');
  expect(text).toContain('*Database*: `billing`');
  expect(text).toContain('*Password*: `••••••`');
  expect(JSON.stringify(card)).not.toContain('hunter2');
  expect(text).toContain('*Proxy*\nProd proxy');
  expect(text).toContain('*Schedule owner*\n<@U02BOB>');
  const ids = JSON.stringify(card.blocks);
  expect(ids).toContain(ACTIONS.scheduleRunNowConfirmed);
  expect(ids).toContain(ACTIONS.scheduleRunNowCancel);
  assertWithinLimits(card, 'message');
});
