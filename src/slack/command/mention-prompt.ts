// A mention cannot open a form (Slack gives events no trigger_id): the answer is a button that does.

import { button, type SlackMessage } from '../kit/common.ts';
import { ACTIONS, COMMAND } from '../kit/ids.ts';
import { escapeMrkdwn, mrkdwnText } from '../kit/mrkdwn.ts';

/** Button values are limited to 2000 characters; longer commands are typed as /runbook instead. */
export const MAX_PROMPT_VALUE = 2000;

export function openFormValue(commandText: string, threadTs: string | null): string | null {
  const value = JSON.stringify({ c: commandText, t: threadTs });
  return value.length <= MAX_PROMPT_VALUE ? value : null;
}

export function readOpenFormValue(value: string): { commandText: string; threadTs: string | null } | null {
  try {
    const parsed = JSON.parse(value) as { c?: unknown; t?: unknown };
    if (typeof parsed.c !== 'string') return null;
    return { commandText: parsed.c, threadTs: typeof parsed.t === 'string' ? parsed.t : null };
  } catch {
    return null;
  }
}

export function buildOpenFormPrompt(commandText: string, value: string): SlackMessage {
  const shown = `${COMMAND} ${commandText}`.trim();
  return {
    text: `Open the form for ${escapeMrkdwn(shown)}`,
    blocks: [
      { type: 'section', text: mrkdwnText(`This needs a form: \`${escapeMrkdwn(shown)}\``) },
      {
        type: 'actions',
        block_id: 'mention_form',
        elements: [button('Open the form', ACTIONS.mentionOpenForm, value, { style: 'primary' })],
      },
    ],
  };
}
