// Slack turns URLs and email addresses typed in a message into links (`<https://…>`, `<mailto:a@b|a@b>`)
// before the app_mention event reaches us; a slash command gets them as typed. The same line must mean
// the same run from both. Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const LINE = 'run "Create Maintenance Window" title=x start_time=2026-12-01T10:00:00Z environments=staging --now';

describe('links Slack made in a mention', () => {
  it('a URL and an email address typed in a mention are taken as typed, as in /runbook', async () => {
    const { message } = await h
      .user()
      .mention(
        `${LINE} runbook_url=<https://wiki.example.com/rb> owner_email=<mailto:ops@example.com|ops@example.com>`,
        'C01OPS',
      );
    const answer = await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === message.ts), 'the answer');
    expect(answer.text).toBe('Run Create Maintenance Window now?');
    const shown = JSON.stringify(answer.blocks);
    expect(shown).toContain('https://wiki.example.com/rb');
    expect(shown).toContain('ops@example.com');
    expect(shown).not.toContain('mailto:');
  });

  it('a bare domain Slack linked (`<http://example.com|example.com>`) is what was typed', async () => {
    const { message } = await h.user().mention(`${LINE} title=<http://example.com|example.com>`, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === message.ts), 'the answer');
    expect(answer.text).toContain('is given twice');
    const again = await h.user().mention(LINE.replace('title=x', 'title=<http://example.com|example.com>'), 'C01OPS');
    const ok = await waitFor(() => h.fake.state.ephemerals.find((e) => e.thread_ts === again.message.ts), 'the answer');
    expect(JSON.stringify(ok.blocks)).toContain('*Title*: `example.com`');
  });
});
