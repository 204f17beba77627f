// Reading Slack back counts only the installation's own bot's messages (many workspaces: a channel shared by
// two installations shows both bots' cards). Outside any installation (one workspace) it reads as before.
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { namesCard, readBackMessages } from '../../../../src/slack/kit/read-back.ts';
import { inInstallation, RoutedWebClient } from '../../../../src/tenants/tenant-scope.ts';

const card = (ts: string, user: string, botId: string) => ({
  ts,
  user,
  bot_id: botId,
  text: 'Dump is running',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Dump* `exec-1`' } }],
});
/** The channel: our bot's card and the other installation's card of the same execution id, newest first. */
const HISTORY = [
  card('2.0', 'U0OTHER', 'B0OTHER'),
  card('1.0', 'U0OURS', 'B0OURS'),
  { ts: '0.5', user: 'U01ALICE', text: '`exec-1`' },
];

/** A client of one token: history answers HISTORY; auth.test answers `bot` (counted). */
function tokenClient(bot: { user_id?: string; bot_id?: string }) {
  const calls = { authTest: 0 };
  const client = {
    token: 'xoxb-one',
    auth: {
      test: async () => {
        calls.authTest++;
        return { ok: true, ...bot };
      },
    },
    conversations: { history: async () => ({ ok: true, messages: HISTORY }) },
  } as unknown as WebClient;
  return { client, calls };
}

describe('readBackMessages', () => {
  it('one workspace (no installation in scope): every message, no auth.test', async () => {
    const { client, calls } = tokenClient({ user_id: 'U0OURS', bot_id: 'B0OURS' });
    const seen = await readBackMessages(client, 'C1', null, 0);
    expect(seen.map((m) => m.ts)).toEqual(['2.0', '1.0', '0.5']);
    expect(calls.authTest).toBe(0);
  });

  it("an installation in scope: only its own bot's messages; the other bot's card of the same id is not ours", async () => {
    const { client, calls } = tokenClient({ user_id: 'U0OURS', bot_id: 'B0OURS' });
    const seen = await inInstallation('T1', () => readBackMessages(client, 'C1', null, 0));
    expect(seen.map((m) => m.ts)).toEqual(['1.0']);
    expect(seen.find(namesCard('exec-1'))?.ts).toBe('1.0');
    // auth.test is asked once per client and token.
    await inInstallation('T1', () => readBackMessages(client, 'C1', null, 0));
    expect(calls.authTest).toBe(1);
  });

  it('matches by bot user id when Slack gives no bot id, and fails (cannot tell) when it gives neither', async () => {
    const byUser = tokenClient({ user_id: 'U0OURS' });
    const seen = await inInstallation('T1', () => readBackMessages(byUser.client, 'C1', null, 0));
    expect(seen.map((m) => m.ts)).toEqual(['1.0']);
    const unknown = tokenClient({});
    await expect(inInstallation('T1', () => readBackMessages(unknown.client, 'C1', null, 0))).rejects.toThrow(
      /cannot read back/,
    );
  });

  it("a routed client (background work) asks the installation store's bot, per installation in scope", async () => {
    const asked: string[] = [];
    const client = new RoutedWebClient(
      async () => 'xoxb-routed',
      {},
      undefined,
      async (id) => {
        asked.push(id);
        return id === 'T1' ? { userId: 'U0OURS', botId: 'B0OURS' } : { userId: 'U0OTHER', botId: 'B0OTHER' };
      },
    );
    // Slack's side: the shared channel (no call leaves the process).
    Object.assign(client, { conversations: { history: async () => ({ ok: true, messages: HISTORY }) } });
    const inT1 = await inInstallation('T1', () => readBackMessages(client, 'C1', null, 0));
    const inT2 = await inInstallation('T2', () => readBackMessages(client, 'C1', null, 0));
    expect(inT1.map((m) => m.ts)).toEqual(['1.0']);
    expect(inT2.map((m) => m.ts)).toEqual(['2.0']);
    expect(asked).toEqual(['T1', 'T2']);
  });

  it('reads a thread from the lost post on, and fails (cannot tell) on a thread longer than it reads', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const thread = (pages: number) =>
      ({
        conversations: {
          replies: async (args: Record<string, unknown>) => {
            asked.push(args);
            const page = Number(args.cursor ?? 0);
            const next = page + 1 < pages ? String(page + 1) : '';
            return {
              ok: true,
              messages: [card(`9.${page}`, 'U0OURS', 'B0OURS')],
              response_metadata: { next_cursor: next },
            };
          },
        },
      }) as unknown as WebClient;
    const seen = await readBackMessages(thread(2), 'C1', '5.0', 60_000);
    expect(seen.map((m) => m.ts)).toEqual(['9.0', '9.1']);
    expect(asked[0]).toMatchObject({ channel: 'C1', ts: '5.0', oldest: '60.000000' });
    await expect(readBackMessages(thread(9), 'C1', '5.0', 60_000)).rejects.toThrow(/cannot tell/);
  });
});
