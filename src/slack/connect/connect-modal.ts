// The Connect form (many-workspace mode): the Runbook API key — never filled in, never shown again —
// and the address only where the operator allows more than one; the "Checking the key…" and result views.
import type { KnownBlock, ModalView } from '@slack/types';
import type { ConnectionStatus } from '../../tenants/api-connections.ts';
import { infoModal, loadingModal } from '../kit/common.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, userMention } from '../kit/mrkdwn.ts';
import { ACCOUNT_CHANGE_EFFECT, type OpenWorkCounts, openWorkSentence } from '../kit/tenancy.ts';

const TITLE = 'Connect Runbook API';

export interface ConnectModalInput {
  /** The connection it replaces, if any. */
  current: ConnectionStatus | null;
  /** The addresses offered; with one, none is asked for. */
  baseUrls: readonly string[];
  /** Why the last attempt saved nothing (shown above the form). */
  problem?: string;
  /** What is open under the current connection (a Replace); absent: nothing known. */
  open?: OpenWorkCounts | null;
}

/** The answer to "which account is the new key for?": only `same` carries what is open on. */
export const SAME_ACCOUNT = 'same';
export const OTHER_ACCOUNT = 'other';

export function buildConnectModal(input: ConnectModalInput): ModalView {
  const blocks: KnownBlock[] = [];
  if (input.problem) {
    blocks.push({ type: 'section', text: mrkdwnText(`:warning: ${escapeMrkdwn(input.problem)}`) });
  }
  blocks.push({
    type: 'section',
    text: mrkdwnText(
      input.current
        ? `Replaces the key ${userMention(input.current.connectedBy)} connected to \`${escapeMrkdwn(input.current.baseUrl)}\`. The new key is checked with one list call first; if it fails, the current one stays.`
        : 'Everyone in this workspace will use this key for runbooks, schedules and executions. It is checked with one list call before it is saved.',
    ),
  });
  if (input.current) {
    const open = input.open ? openWorkSentence(input.open) : null;
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `${open ? `Open under the current key: *${escapeMrkdwn(open)}*.` : 'Nothing is open under the current key.'} With a key of *another account*, ${ACCOUNT_CHANGE_EFFECT}. With a rotated key of the *same account*, all of it carries on.`,
      ),
    });
    blocks.push({
      type: 'input',
      block_id: BLOCKS.connectAccount,
      label: plainText('Which account is the new key for?', 2000),
      element: {
        type: 'radio_buttons',
        action_id: ACTIONS.connectAccount,
        options: [
          {
            text: plainText('The same account (a rotated key)', 75),
            description: plainText('Everything open carries on', 75),
            value: SAME_ACCOUNT,
          },
          {
            text: plainText('Another account', 75),
            description: plainText('Everything open under the current key ends', 75),
            value: OTHER_ACCOUNT,
          },
        ],
      },
    });
  }
  if (input.baseUrls.length > 1) {
    const options = input.baseUrls.map((url) => ({ text: plainText(url, 75), value: url.slice(0, 150) }));
    const current = options.find((o) => o.value === input.current?.baseUrl);
    blocks.push({
      type: 'input',
      block_id: BLOCKS.connectUrl,
      label: plainText('Runbook API address', 2000),
      element: {
        type: 'static_select',
        action_id: ACTIONS.connectUrl,
        options,
        ...(current ? { initial_option: current } : {}),
      },
    });
  }
  blocks.push({
    type: 'input',
    block_id: BLOCKS.connectKey,
    label: plainText('API key', 2000),
    hint: plainText('Stored encrypted and never shown again, not even to you.', 2000),
    element: {
      type: 'plain_text_input',
      action_id: ACTIONS.connectKey,
      placeholder: plainText('Paste the key', 150),
      max_length: 512,
    },
  });
  return {
    type: 'modal',
    callback_id: VIEWS.connect,
    title: plainText(TITLE, 24),
    submit: plainText(input.current ? 'Replace' : 'Connect', 24),
    close: plainText('Cancel', 24),
    blocks,
  };
}

export function checkingModal(): ModalView {
  return loadingModal(TITLE, 'Checking the key with the Runbook API…');
}

/** `ended`: what a key of another account ended (null: nothing did, or the same account). */
export function connectedModal(status: ConnectionStatus, ended: OpenWorkCounts | null = null): ModalView {
  const endedSentence = ended ? openWorkSentence(ended) : null;
  return infoModal(
    TITLE,
    `:white_check_mark: Connected to \`${escapeMrkdwn(status.baseUrl)}\`. The key is stored encrypted and will not be shown again.${endedSentence ? ` Ended with the previous account: ${escapeMrkdwn(endedSentence)}; those concerned are told.` : ''}`,
  );
}
