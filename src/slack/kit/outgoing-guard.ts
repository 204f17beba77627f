// The one door every text leaves by. Whatever a builder or a handler put together, what Slack
// receives — chat.postMessage / update / postEphemeral, views.open / update / push / publish (every
// WebClient the bot uses is guarded: the app's, each request's, the watcher's, the scanner's, the
// no-retry poster's) and response_url bodies (respondWith) — passes through guardOutgoing:
// top-level `text`, attachments' text, and every mrkdwn text object keep only the <…> tokens our
// helpers made (mentions of validated ids, dates; ./mrkdwn.ts) and sealed mentions
// (src/mentions.ts); any other <!…>, <@…>, <#…>, <http…> is escaped and cannot ping or link.
// plain_text (titles, labels, options, buttons) is never read as mrkdwn by Slack and is left as is,
// except that sealed mentions are turned into their tokens everywhere. Acks (response_action views and
// field errors, command replies, typeahead options) pass through it too (./guard-outgoing.ts).
import type { WebClient } from '@slack/web-api';
import { plainMentions } from '../../mentions.ts';
import { neutralizeMrkdwn } from './mrkdwn.ts';

const TEXT_KEYS = new Set(['text', 'fallback', 'pretext']);

/** A copy of an outgoing payload with every mrkdwn text made safe (see above). */
export function guardOutgoing<T>(payload: T): T {
  return walk(payload, true) as T;
}

function walk(node: unknown, topLevel: boolean): unknown {
  if (typeof node === 'string') return plainMentions(node);
  if (Array.isArray(node)) return node.map((n) => walk(n, false));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // A text object is mrkdwn when it says so; a top-level payload's or an attachment's text always is.
  const mrkdwnObject = o.type === 'mrkdwn';
  const plainObject = o.type === 'plain_text';
  for (const [key, value] of Object.entries(o)) {
    if (typeof value === 'string' && key === 'text' && (mrkdwnObject || (!plainObject && topLevel))) {
      out[key] = neutralizeMrkdwn(value);
    } else if (typeof value === 'string' && TEXT_KEYS.has(key) && !plainObject && !mrkdwnObject && isAttachment(o)) {
      out[key] = neutralizeMrkdwn(value);
    } else if (key === 'attachments' && Array.isArray(value)) {
      out[key] = value.map((a) => (a && typeof a === 'object' ? walkAttachment(a as Record<string, unknown>) : a));
    } else {
      out[key] = walk(value, false);
    }
  }
  return out;
}

function isAttachment(o: Record<string, unknown>): boolean {
  return 'fallback' in o || 'pretext' in o || 'color' in o;
}

function walkAttachment(a: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(a)) {
    out[key] = typeof value === 'string' && TEXT_KEYS.has(key) ? neutralizeMrkdwn(value) : walk(value, false);
  }
  return out;
}

const GUARDED = Symbol('runbook-bot.outgoing-guard');
const METHODS: Record<string, readonly string[]> = {
  chat: ['postMessage', 'update', 'postEphemeral', 'scheduleMessage'],
  views: ['open', 'update', 'push', 'publish'],
};

/** Makes every message and view method of `client` send through guardOutgoing. Idempotent. */
export function guardClient<C extends WebClient>(client: C): C {
  const marked = client as C & { [GUARDED]?: boolean };
  if (marked[GUARDED]) return client;
  marked[GUARDED] = true;
  for (const [family, methods] of Object.entries(METHODS)) {
    const target = (client as unknown as Record<string, Record<string, (args: unknown) => Promise<unknown>>>)[family]!;
    for (const method of methods) {
      const original = target[method]!.bind(target);
      target[method] = (args: unknown) => original(guardOutgoing(args));
    }
  }
  return client;
}
