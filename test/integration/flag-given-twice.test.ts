// A flag given twice with two values is refused, as a `key=value` given twice already is — not settled
// silently by whichever came last. Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('a flag given twice', () => {
  it.each([
    ['executions --status failed --status running', '`--status` is given twice'],
    ['list --category sre --category devops', '`--category` is given twice'],
    ['schedules --next 24h --next 7d', '`--next` is given twice'],
    ['alias add twice "Scale Kubernetes Deployment" --to #ops --to #deploys', '`--to` is given twice'],
  ])('/runbook %s is refused with that sentence', async (line, sentence) => {
    await h.user().command(line, 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, sentence), sentence);
  });

  it('defaults with two proxies saves neither', async () => {
    await h.user().command('defaults --proxy proxy-dev --proxy proxy-staging', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, '`--proxy` is given twice'), 'the refusal');
    expect(await h.runtime.store.channelDefaults.get('C01OPS')).toBeNull();
  });

  it('the same value twice is no contradiction and works', async () => {
    await h.user().command('executions --status failed --status failed', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'status failed'), 'the failed executions');
  });
});
