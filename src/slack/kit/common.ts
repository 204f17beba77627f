// Small shared builders: message shape, error and info surfaces ("already done" included), the loading modal.
import type { Button, ConfirmationDialog, KnownBlock, ModalView } from '@slack/types';
import { ALREADY_DONE } from '../../runs/once.ts';
import { VIEWS } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, slackDate, truncate, userMention } from './mrkdwn.ts';

export interface SlackMessage {
  /** Notification / accessibility text; always set. */
  text: string;
  blocks: KnownBlock[];
}

/** One clear sentence (already user-facing) as a message. The sentence is escaped here. */
export function errorMessage(sentence: string): SlackMessage {
  const text = `:warning: ${escapeMrkdwn(sentence)}`;
  return { text: escapeMrkdwn(truncate(sentence, 3000)), blocks: [{ type: 'section', text: mrkdwnText(text) }] };
}

export function noticeMessage(mrkdwn: string, fallback: string): SlackMessage {
  // The fallback is plain words with text from outside in it: escaped like any mrkdwn (it is what notifications show).
  return { text: escapeMrkdwn(truncate(fallback, 3000)), blocks: [{ type: 'section', text: mrkdwnText(mrkdwn) }] };
}

export function button(
  text: string,
  actionId: string,
  value: string,
  options: { style?: 'primary' | 'danger'; confirm?: ConfirmationDialog } = {},
): Button {
  return {
    type: 'button',
    text: plainText(text, 75),
    action_id: actionId,
    value: value.slice(0, 2000),
    ...(options.style ? { style: options.style } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
  };
}

export function confirmDialog(title: string, text: string, confirm: string, deny = 'Cancel'): ConfirmationDialog {
  return {
    title: plainText(title, 100),
    text: { type: 'plain_text', text: truncate(text, 300) || ' ' },
    confirm: plainText(confirm, 30),
    deny: plainText(deny, 30),
    style: 'danger',
  };
}

export function loadingModal(title: string, text = 'Loading…'): ModalView {
  return {
    type: 'modal',
    callback_id: VIEWS.loading,
    title: plainText(title, 24),
    close: plainText('Cancel', 24),
    blocks: [{ type: 'section', text: mrkdwnText(`:hourglass_flowing_sand: ${escapeMrkdwn(text)}`) }],
  };
}

/** A modal that only tells something (an error, a refusal): no submit button. `mrkdwn` is already escaped. */
export function infoModal(title: string, mrkdwn: string, extra: KnownBlock[] = []): ModalView {
  return {
    type: 'modal',
    callback_id: VIEWS.info,
    title: plainText(title, 24),
    close: plainText('Close', 24),
    // No blank leading section when the extra blocks say it all (a pick list): it shows as an empty gap.
    blocks:
      mrkdwn.trim() === '' && extra.length > 0 ? extra : [{ type: 'section', text: mrkdwnText(mrkdwn) }, ...extra],
  };
}

export function errorModal(title: string, sentence: string): ModalView {
  return infoModal(title, `:warning: ${escapeMrkdwn(sentence)}`);
}

/** "2026-11-21T07:21:33Z" → Slack date token that renders in the reader's time zone. */
export function when(iso: string | null, fallback = 'never'): string {
  if (!iso) return fallback;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return escapeMrkdwn(iso);
  return slackDate(Math.floor(ms / 1000), `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`);
}

/** "That was already done … (by @x, <date>)": `viewer` is who asks (their own earlier click says "you"). */
export function alreadyDoneMessage(done: { by: string | null; at: number | null }, viewer: string): SlackMessage {
  const parts: string[] = [];
  if (done.by !== null) parts.push(done.by === viewer ? 'by you' : `by ${userMention(done.by)}`);
  if (done.at !== null) {
    parts.push(slackDate(done.at / 1000, `${new Date(done.at).toISOString().slice(0, 16).replace('T', ' ')} UTC`));
  }
  const detail = parts.length ? ` (${parts.join(', ')})` : '';
  return noticeMessage(`:information_source: ${escapeMrkdwn(ALREADY_DONE)}${detail}`, `Already done: ${ALREADY_DONE}`);
}
