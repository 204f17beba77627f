// What Slack says about a destination, for the destination check (src/runs/destinations.ts): does the
// conversation exist for the bot, is it archived, is the bot in it (conversations.info), is the person who
// chose it a member (users.conversations with `user`: their public channels, and the private ones the bot
// shares with them), and is a DM their own DM with the bot (conversations.open). Each answer is cached in
// an LRU with a short TTL so an interactive answer keeps Slack's 3 s, and concurrent lookups share one
// call. Slack failing to answer is an error with a sentence (fails closed), never "allowed". Many workspaces:
// kept per installation in scope (a channel shared over Slack Connect has one id and a bot per workspace).
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.ts';
import type { ChosenDestination, PlaceFacts, PlaceKind, SavedIn } from '../../runs/destinations.ts';
import { currentInstallation } from '../../tenants/tenant-scope.ts';
import { slackErrorCode } from './post-to-conversation.ts';
import { UserFacingError } from './user-facing-error.ts';

export interface PlacesOptions {
  /** How long a person's channel memberships are trusted (default 30 s). */
  membershipTtlMs?: number;
  /** How long a conversation's facts are trusted (default 60 s). */
  conversationTtlMs?: number;
  /** Pages of users.conversations read per person (999 channels a page; default 10). */
  maxPages?: number;
  now?: () => number;
  logger: Logger;
}

/** What conversations.info says, without the chooser. lru-cache stores objects, so "not found" is one too. */
interface Conversation {
  found: boolean;
  kind: PlaceKind;
  archived: boolean;
  botIsMember: boolean;
}

interface Memberships {
  channels: ReadonlySet<string>;
}

interface OwnDm {
  id: string | null;
}

const NOT_FOUND: Conversation = { found: false, kind: 'public', archived: false, botIsMember: false };

function unreachable(err: unknown): UserFacingError {
  const code = slackErrorCode(err);
  return new UserFacingError(
    `Slack could not tell me whether the result may go to that channel${code ? ` (${code})` : ''}, so nothing was done; try again in a minute.`,
  );
}

/** A cache key: the id, under the installation in scope ('' outside any). */
const scoped = (id: string): string => `${currentInstallation() ?? ''}\n${id}`;
const idOf = (key: string): string => key.slice(key.indexOf('\n') + 1);

export class Places {
  readonly #o: PlacesOptions;
  readonly #conversations: LRUCache<string, Conversation, WebClient>;
  readonly #memberships: LRUCache<string, Memberships, WebClient>;
  readonly #dms: LRUCache<string, OwnDm, WebClient>;

  constructor(options: PlacesOptions) {
    this.#o = options;
    const now = options.now ?? Date.now;
    // Bounded by count through maxSize, not `max`, which allocates every slot up front (identity.ts).
    const common = { maxSize: 10_000, sizeCalculation: () => 1, perf: { now }, ttlResolution: 0 } as const;
    const membershipTtl = options.membershipTtlMs ?? 30_000;
    this.#conversations = new LRUCache<string, Conversation, WebClient>({
      ...common,
      ttl: options.conversationTtlMs ?? 60_000,
      fetchMethod: (key, _stale, { context }) => this.#readConversation(context, idOf(key)),
    });
    this.#memberships = new LRUCache<string, Memberships, WebClient>({
      ...common,
      // lru-cache takes 0 as "no TTL": a zero TTL means "ask every time", so it is 1 ms.
      ttl: Math.max(1, membershipTtl),
      fetchMethod: (key, _stale, { context }) => this.#readMemberships(context, idOf(key)),
    });
    this.#dms = new LRUCache<string, OwnDm, WebClient>({
      ...common,
      ttl: 10 * 60_000,
      fetchMethod: async (key, _stale, { context }) => {
        const res = await context.conversations.open({ users: idOf(key) });
        return { id: res.channel?.id ?? null };
      },
    });
  }

  async #readConversation(client: WebClient, channel: string): Promise<Conversation> {
    try {
      const res = await client.conversations.info({ channel });
      const c = res.channel ?? {};
      const kind: PlaceKind = c.is_im ? 'dm' : c.is_mpim ? 'group-dm' : c.is_private ? 'private' : 'public';
      return {
        found: true,
        kind,
        archived: c.is_archived === true,
        botIsMember: c.is_member === true || c.is_im === true,
      };
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === 'channel_not_found' || code === 'missing_scope') return NOT_FOUND;
      throw err;
    }
  }

  async #readMemberships(client: WebClient, userId: string): Promise<Memberships> {
    const channels = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < (this.#o.maxPages ?? 10); page++) {
      const res = await client.users.conversations({
        user: userId,
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: 999,
        ...(cursor ? { cursor } : {}),
      });
      for (const c of res.channels ?? []) if (c.id) channels.add(c.id);
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    if (cursor) this.#o.logger.warn({ userId }, 'stopped reading memberships at the page limit');
    return { channels };
  }

  /** The facts of `channel` for the destination check, as `chooser` chose it. Throws a sentence when Slack fails. */
  async facts(client: WebClient, channel: string, chooser: string): Promise<PlaceFacts> {
    try {
      if (channel.startsWith('D')) {
        const own = await this.#dms.fetch(scoped(chooser), { context: client });
        const mine = own?.id === channel;
        return { found: true, kind: 'dm', archived: false, botIsMember: true, chooserIsMember: mine };
      }
      const conversation = (await this.#conversations.fetch(scoped(channel), { context: client })) ?? NOT_FOUND;
      if (!conversation.found || conversation.kind === 'dm') {
        return { ...conversation, chooserIsMember: false };
      }
      const memberships = await this.#memberships.fetch(scoped(chooser), { context: client });
      return { ...conversation, chooserIsMember: memberships?.channels.has(channel) ?? false };
    } catch (err) {
      if (err instanceof UserFacingError) throw err;
      this.#o.logger.warn({ err: slackErrorCode(err) ?? err, channel }, 'could not read where a result would go');
      throw unreachable(err);
    }
  }

  /** The destination as the gate judges it: `channel`, chosen (or saved, with `saved`) by `chooser`. */
  async destination(
    client: WebClient,
    channel: string,
    chooser: string,
    saved: SavedIn | null = null,
  ): Promise<ChosenDestination> {
    return { channel, chosenBy: chooser, saved, facts: await this.facts(client, channel, chooser) };
  }
}
