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

/**
 * The answer to a mention that needs a form. `secrets`: keys typed with secret values, already left out of
 * `commandText` (typed-secrets.ts): named, never shown, with what to do about the message that holds them.
 */
export function buildOpenFormPrompt(commandText: string, value: string, secrets: readonly string[] = []): SlackMessage {
  const shown = `${COMMAND} ${commandText}`.trim();
  const names = secrets.map((name) => `\`${escapeMrkdwn(name)}\``).join(', ');
  const warning =
    secrets.length > 0
      ? `:warning: ${names} ${secrets.length === 1 ? 'is a secret' : 'are secrets'}: never taken from a message, and your message keeps ${secrets.length === 1 ? 'it' : 'them'} in this conversation's history — rotate ${secrets.length === 1 ? 'it' : 'them'}, then type the new value in the form.`
      : null;
  return {
    text: `Open the form for ${escapeMrkdwn(shown)}`,
    blocks: [
      ...(warning ? [{ type: 'section' as const, text: mrkdwnText(warning) }] : []),
      { type: 'section', text: mrkdwnText(`This needs a form: \`${escapeMrkdwn(shown)}\``) },
      {
        type: 'actions',
        block_id: 'mention_form',
        elements: [button('Open the form', ACTIONS.mentionOpenForm, value, { style: 'primary' })],
      },
    ],
  };
}
