// `--to #deploys` → a channel id. With the slash command's should_escape false, Slack sends a channel
// picked from autocomplete as plain `#name`, not `<#C…|name>`, so the name is looked up in
// conversations.list (public channels and the private ones the bot is in; needs channels:read and
// groups:read). One listing per team is kept briefly, so a burst of commands walks the pages once.
import type { WebClient } from '@slack/web-api';

export type ChannelLookup = { ok: true; id: string } | { ok: false; error: string };

export interface ChannelNamesOptions {
  /** How long a listing is reused (default 60 s). */
  ttlMs?: number;
  /** A name missing from a listing at least this old fetches a fresh one (default 10 s). */
  refreshMissAfterMs?: number;
  now?: () => number;
}

export interface ChannelNames {
  /** The id of `#name` (with or without the #) in the team, or a sentence saying why not. */
  resolve: (client: WebClient, teamId: string | null, name: string) => Promise<ChannelLookup>;
}

/** Pages walked at most (1000 channels each). */
const MAX_PAGES = 50;

async function listChannels(client: WebClient): Promise<Map<string, string>> {
  const byName = new Map<string, string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.conversations.list({
      types: 'public_channel,private_channel',
      exclude_archived: true,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const c of res.channels ?? []) {
      if (c.id && c.name) byName.set(c.name.toLowerCase(), c.id);
    }
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return byName;
}

export function createChannelNames(options: ChannelNamesOptions = {}): ChannelNames {
  const ttl = options.ttlMs ?? 60_000;
  const refreshMissAfter = options.refreshMissAfterMs ?? 10_000;
  const now = options.now ?? Date.now;
  const listings = new Map<string, { at: number; byName: Promise<Map<string, string>> }>();

  function listing(client: WebClient, team: string, fresh: boolean) {
    const cached = listings.get(team);
    if (cached && !fresh && now() - cached.at < ttl) return cached;
    const entry = { at: now(), byName: listChannels(client) };
    listings.set(team, entry);
    // A failed listing is not kept: the next command tries again.
    entry.byName.catch(() => {
      if (listings.get(team) === entry) listings.delete(team);
    });
    return entry;
  }

  return {
    async resolve(client, teamId, name) {
      const wanted = name.replace(/^#/, '').toLowerCase();
      const team = teamId ?? '';
      try {
        let entry = listing(client, team, false);
        let id = (await entry.byName).get(wanted);
        if (!id && now() - entry.at >= refreshMissAfter) {
          entry = listing(client, team, true);
          id = (await entry.byName).get(wanted);
        }
        if (id) return { ok: true, id };
        return {
          ok: false,
          error: `No channel \`#${wanted}\` that I can see; check the name, or invite me if it is private.`,
        };
      } catch {
        return {
          ok: false,
          error: `Could not look up \`#${wanted}\` in Slack just now; try again, or pick the channel's link.`,
        };
      }
    },
  };
}

/** The process-wide lookup the command handlers use. */
export const channelNames: ChannelNames = createChannelNames();
