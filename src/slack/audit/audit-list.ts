// /runbook audit: the latest entries of the audit trail, newest first.
import type { KnownBlock } from '@slack/types';
import { mention, readStoredMentions } from '../../mentions.ts';
import type { AuditEntry } from '../../store/store.ts';
import type { SlackMessage } from '../kit/common.ts';
import {
  channelMention,
  escapeMrkdwn,
  mrkdwnText,
  plainText,
  slackDate,
  truncate,
  userMention,
} from '../kit/mrkdwn.ts';

const OUTCOME: Record<AuditEntry['outcome'], string> = { ok: ':white_check_mark:', denied: ':no_entry:', error: ':x:' };
const DETAIL_MAX = 200;

/**
 * A detail cut to fit, keeping its last part when it names a run's entry point (`; via …`): that is what
 * tells two runs' records apart, so it is never the part cut off.
 */
export function shortDetail(detail: string): string {
  const via = /; via [^;]{1,80}$/.exec(detail)?.[0];
  if (!via || detail.length <= DETAIL_MAX) return truncate(detail, DETAIL_MAX);
  return `${truncate(detail.slice(0, -via.length), DETAIL_MAX - via.length)}${via}`;
}

/** An instant as the bot writes it in a record (Date#toISOString), never anything looser. */
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\b/g;

/** Outside text escaped; each instant the record names shown as a date token (the reader's own time zone). */
function escapeWithDates(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(ISO_INSTANT)) {
    const ms = Date.parse(m[0]);
    if (Number.isNaN(ms)) continue;
    out += escapeMrkdwn(text.slice(last, m.index));
    out += slackDate(ms / 1000, `${m[0].slice(0, 16).replace('T', ' ')} UTC`);
    last = m.index + m[0].length;
  }
  return out + escapeMrkdwn(text.slice(last));
}

/**
 * A record's detail for Slack: the mentions the bot itself wrote (marked when stored, src/mentions.ts) live,
 * instants as date tokens, everything else escaped — a mention-like string from outside stays text.
 */
export function renderDetail(detail: string): string {
  return readStoredMentions(shortDetail(detail), escapeWithDates, (kind, id) => escapeMrkdwn(mention[kind](id)));
}

export function buildAuditList(entries: AuditEntry[]): SlackMessage {
  if (entries.length === 0) {
    return { text: 'No audit entries yet.', blocks: [{ type: 'section', text: mrkdwnText('No audit entries yet.') }] };
  }
  // Several entries per section keep long trails inside the 50-block limit.
  const lines = entries.map((e) => {
    const who = e.userId ? userMention(e.userId) : 'the bot';
    const where = e.channel ? ` in ${channelMention(e.channel)}` : '';
    const target = e.target ? ` · ${escapeMrkdwn(truncate(e.target, 120))}` : '';
    const detail = e.detail ? `\n      _${renderDetail(e.detail)}_` : '';
    const tid = e.tid ? ` · request \`${escapeMrkdwn(e.tid)}\`` : '';
    const at = slackDate(e.at / 1000, new Date(e.at).toISOString());
    return `${OUTCOME[e.outcome]} ${at} ${who}${where} *${escapeMrkdwn(e.action)}*${target}${tid}${detail}`;
  });
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(`Audit trail (latest ${entries.length})`, 150) }];
  let chunk: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > 2900 && chunk.length) {
      blocks.push({ type: 'section', text: mrkdwnText(chunk.join('\n')) });
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += line.length + 1;
  }
  if (chunk.length) blocks.push({ type: 'section', text: mrkdwnText(chunk.join('\n')) });
  return { text: `Audit trail (latest ${entries.length})`, blocks: blocks.slice(0, 50) };
}
