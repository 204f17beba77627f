// The top-level `text` of a message is what notifications, screen readers and old clients show, and Slack
// reads it as mrkdwn: a hostile name from outside must come out inert there too, exactly as in the blocks.
import { describe, expect, it } from 'vitest';
import { buildOpenFormPrompt } from '../../../src/slack/command/mention-prompt.ts';
import { buildFreezeNotice, buildPassGranted } from '../../../src/slack/freezes/freeze-list.ts';
import type { SlackMessage } from '../../../src/slack/kit/common.ts';
import { errorMessage, noticeMessage } from '../../../src/slack/kit/common.ts';
import { buildNoPrefixMatch } from '../../../src/slack/kit/execution-candidates.ts';
import { buildRunStarted } from '../../../src/slack/kit/run-started.ts';
import { buildRunConfirmation } from '../../../src/slack/run/run-confirmation.ts';
import { buildRunNowConfirmation } from '../../../src/slack/schedules/run-now-confirm.ts';

const HOSTILE = '*Prod* _wipe_ ~x~ <!channel> <@U0EVIL> <https://evil.example|click> & co';

function expectInert(message: SlackMessage) {
  const { text } = message;
  expect(text, text).not.toMatch(/<[!@#h]/);
  expect(text, text).not.toContain('*Prod*');
  expect(text, text).not.toContain('_wipe_');
  expect(text, text).not.toContain('~x~');
  expect(text, text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  // Still names the thing, escaped.
  expect(text, text).toContain('&lt;@U0EVIL&gt;');
}

const builders: [string, () => SlackMessage][] = [
  ['freeze pass', () => buildPassGranted({ runbookName: HOSTILE, freeze: HOSTILE, expiresAt: 1_800_000_000_000 })],
  [
    'freeze paused',
    () =>
      buildFreezeNotice({
        kind: 'paused',
        freeze: HOSTILE,
        until: 1_800_000_000_000,
        scheduleId: 's1',
        runbookName: HOSTILE,
        cron: '0 * * * *',
        channel: 'C01OPS',
      } as Parameters<typeof buildFreezeNotice>[0]),
  ],
  [
    'freeze resumed',
    () =>
      buildFreezeNotice({
        kind: 'resumed',
        freeze: HOSTILE,
        until: null,
        scheduleId: 's1',
        runbookName: HOSTILE,
        cron: '0 * * * *',
        channel: 'C01OPS',
      } as Parameters<typeof buildFreezeNotice>[0]),
  ],
  ['run started', () => buildRunStarted({ runbookName: HOSTILE, channel: 'C01OPS', inThread: false, cardLink: null })],
  ['open form prompt', () => buildOpenFormPrompt(`run ${HOSTILE}`, 'v')],
  ['error message', () => errorMessage(`The runbook ${HOSTILE} was not found.`)],
  ['notice fallback', () => noticeMessage('ok', `Alias ${HOSTILE} removed`)],
  ['no prefix match', () => buildNoPrefixMatch(HOSTILE)],
  [
    'run confirmation',
    () =>
      buildRunConfirmation({
        runbookName: HOSTILE,
        inputs: [],
        proxyId: 'proxy-dev',
        destination: null,
        value: 'v',
      } as unknown as Parameters<typeof buildRunConfirmation>[0]),
  ],
  [
    'run-now confirmation',
    () =>
      buildRunNowConfirmation({
        scheduleId: 's1',
        runbookName: HOSTILE,
        inputs: [],
        proxy: { id: 'proxy-dev' },
        owner: null,
        cron: '0 * * * *',
        cronEnglish: 'every hour',
        someoneElses: false,
      }),
  ],
];

describe('top-level text of builders over a hostile name', () => {
  it.each(builders)('%s: escaped, never formatted, pinging or linking', (_name, build) => {
    expectInert(build());
  });
});
