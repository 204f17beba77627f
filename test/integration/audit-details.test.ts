// `/runbook audit` through Bolt: the mentions the bot wrote into a record are live, the instants it wrote
// are date tokens (each reader's own time zone), and text from outside that looks like either stays text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mention } from '../../src/mentions.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({});
});
afterAll(async () => {
  await h.stop();
});

describe('/runbook audit details', () => {
  it('shows the bot’s mentions live and its instants as date tokens, outside look-alikes escaped', async () => {
    const until = Date.parse('2026-12-20T17:00:00.000Z');
    const hostile = 'Evil <@U0EVIL> <!channel> \uE002<@U0FORGED>\uE003';
    await h.runtime.deps.access.audit.record({
      userId: 'U03CAROL',
      teamId: 'T01',
      channel: 'C01OPS',
      action: 'run.open',
      target: hostile,
      outcome: 'denied',
      detail: `the runbook “${hostile}” needs approval from ${mention.user('U02BOB')} until ${new Date(until).toISOString()}`,
      tid: null,
    });
    const [stored] = await h.runtime.deps.access.audit.recent(1);
    // The stored record stays machine-readable: the instant as ISO, the mention as its plain token.
    expect(stored!.detail).toContain('2026-12-20T17:00:00.000Z');
    expect(stored!.detail).toContain('<@U02BOB>');

    await h.user('U01ALICE').command('audit 5', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'Audit trail'), 'audit');
    const shown = JSON.stringify(reply.blocks);
    expect(shown).toContain('needs approval from <@U02BOB>');
    expect(shown).not.toContain('&lt;@U02BOB&gt;');
    expect(shown).toContain(`until <!date^${until / 1000}^`);
    expect(shown).not.toContain('until 2026-12-20T17:00:00.000Z');
    expect(shown).not.toContain('<@U0EVIL>');
    expect(shown).not.toContain('<@U0FORGED>');
    expect(shown).not.toContain('<!channel>');
    expect(shown).toContain('&lt;@U0EVIL&gt;');
  });
});
