// The one door every text leaves by. Whatever a builder or a handler put together, what Slack
// receives — every Web API call of every WebClient the bot uses (the app's, each request's, the
// watcher's, the scanner's, the no-retry poster's: chat.*, views.*, files.* including the upload
// flow's completeUploadExternal, functions.completeSuccess / completeError, and any method added
// later, because the client's one request path is wrapped) and response_url bodies (respondWith) —
// passes through guardOutgoing: top-level `text`, a file's `initial_comment`, a step's `error` and
// every string of its `outputs` (a workflow may put them into a message), attachments' text, and
// every mrkdwn text object keep only the <…> tokens our helpers made (mentions of validated ids,
// dates; ./mrkdwn.ts) and sealed mentions (src/mentions.ts); any other <!…>, <@…>, <#…>,
// <http…> is escaped and cannot ping or link.
// plain_text (titles, labels, options, buttons) is never read as mrkdwn by Slack and is left as is,
// except that sealed mentions are turned into their tokens everywhere. Acks (response_action views and
// field errors, command replies, typeahead options) pass through it too (./guard-outgoing.ts).
import type { WebClient } from '@slack/web-api';
import { plainMentions } from '../../mentions.ts';
import { neutralizeMrkdwn } from './mrkdwn.ts';

const TEXT_KEYS = new Set(['text', 'fallback', 'pretext']);
/** Top-level arguments Slack (or a later workflow step) reads as mrkdwn, besides `text`. */
const TOP_TEXT_KEYS = new Set(['text', 'initial_comment', 'error']);

/** A copy of an outgoing payload with every mrkdwn text made safe (see above). */
export function guardOutgoing<T>(payload: T): T {
  return walk(payload, true) as T;
}

function walk(node: unknown, topLevel: boolean): unknown {
  if (typeof node === 'string') return plainMentions(node);
  if (Array.isArray(node)) return node.map((n) => walk(n, false));
  if (!node || typeof node !== 'object') return node;
  // Bytes, streams and the like are not text: passed on untouched.
  const proto = Object.getPrototypeOf(node) as unknown;
  if (proto !== Object.prototype && proto !== null) return node;
  const o = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // A text object is mrkdwn when it says so; a top-level payload's or an attachment's text always is.
  const mrkdwnObject = o.type === 'mrkdwn';
  const plainObject = o.type === 'plain_text';
  for (const [key, value] of Object.entries(o)) {
    if (typeof value === 'string' && key === 'text' && (mrkdwnObject || (!plainObject && topLevel))) {
      out[key] = neutralizeMrkdwn(value);
    } else if (topLevel && typeof value === 'string' && TOP_TEXT_KEYS.has(key)) {
      out[key] = neutralizeMrkdwn(value);
    } else if (topLevel && key === 'outputs' && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? neutralizeMrkdwn(v) : walk(v, false)]),
      );
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

type MakeRequest = (url: string, body: Record<string, unknown>, headers?: Record<string, string>) => Promise<unknown>;

/**
 * Makes every Web API call of `client` send its arguments through guardOutgoing. Every method (the
 * bound chat.*, views.*, files.*, functions.*, …, apiCall itself and files.uploadV2's inner calls)
 * ends in the client's one request path, makeRequest(url, body): that is wrapped, so no method can be
 * forgotten. Idempotent. A Web API client without that path fails here, at start, not silently later.
 */
export function guardClient<C extends WebClient>(client: C): C {
  const marked = client as unknown as { [GUARDED]?: boolean; makeRequest?: MakeRequest };
  if (marked[GUARDED]) return client;
  const original = marked.makeRequest;
  if (typeof original !== 'function') throw new Error('the Slack Web API client has no makeRequest to guard');
  marked[GUARDED] = true;
  const send = original.bind(client);
  marked.makeRequest = (url: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    send(url, guardOutgoing(body), headers);
  return client;
}
