// Many-workspace mode: the top of App Home says which Runbook API this workspace uses (never the key),
// or that it is not connected yet (or its address is no longer allowed by the operator) and who can connect it; those who may manage it get Connect, or
// Replace key and Disconnect; once connected, where this workspace's approval requests go and who approves
// (Approval settings for the same people).
import type { KnownBlock } from '@slack/types';
import type { ConnectionStatus } from '../../tenants/api-connections.ts';
import { button, confirmDialog, when } from '../kit/common.ts';
import { ACTIONS } from '../kit/ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, userMention } from '../kit/mrkdwn.ts';
import { installerWhoMayReconnect, type OpenWorkCounts, openWorkSentence, whoMayConnect } from '../kit/tenancy.ts';

export interface ConnectionSectionInput {
  status: ConnectionStatus | null;
  installerId: string | null;
  /** Whether this person may connect, replace or remove it (and change the approval settings). */
  canManage: boolean;
  /** What is open under the connection (said by Disconnect's confirmation); null: unknown. */
  open?: OpenWorkCounts | null;
  /** A saved connection to an address the operator no longer allows (with `status` null). */
  withdrawn?: ConnectionStatus | null;
  /** The approval settings' line (settings-modal.ts's summary); absent: not shown. */
  approvalLine?: string;
}

/** Disconnect's confirmation (plain text, at most 300 characters): what stops, what is open and ends. */
function disconnectWarning(open: OpenWorkCounts | null): string {
  const stops = 'Nobody here can run, schedule or see runbooks until a key is connected again.';
  const listed = open ? openWorkSentence(open) : null;
  if (!listed) return stops;
  return `${stops} Open now: ${listed}. All of it ends, and whoever it concerns is told; nothing is carried onto a later key.`;
}

export function connectionSection(input: ConnectionSectionInput): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText('Runbook API', 150) }];
  if (!input.status) {
    // Said here, in Home: those who may connect are pointed at the button below, not sent to "the Home tab".
    const removed = input.withdrawn
      ? `This workspace's Runbook API address \`${escapeMrkdwn(input.withdrawn.baseUrl)}\` is no longer allowed by the operator, so nothing here can run, schedule or see runbooks. `
      : null;
    const sentence = removed
      ? input.canManage
        ? `${removed}Press *Connect* below to reconnect it to an address that is allowed.`
        : `${removed}Ask ${whoMayConnect(installerWhoMayReconnect(input.installerId, input.withdrawn ?? null))} to reconnect it here.`
      : input.canManage
        ? 'This workspace is not connected to a Runbook API yet: press *Connect* below and paste its API key. Until then nobody here can run, schedule or see runbooks.'
        : `This workspace is not connected to a Runbook API yet: ${whoMayConnect(input.installerId)} can connect it here.`;
    blocks.push({ type: 'section', text: mrkdwnText(`:electric_plug: ${sentence}`) });
    if (input.canManage) {
      blocks.push({
        type: 'actions',
        block_id: 'home_connect',
        elements: [button('Connect', ACTIONS.connectOpen, 'connect', { style: 'primary' })],
      });
    }
  } else {
    const { baseUrl, connectedBy, connectedAt } = input.status;
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `:white_check_mark: Connected to \`${escapeMrkdwn(baseUrl)}\` by ${userMention(connectedBy)} ${when(new Date(connectedAt).toISOString())}. The key is stored encrypted and is never shown.`,
      ),
    });
    if (input.canManage) {
      blocks.push({
        type: 'actions',
        block_id: 'home_connect',
        elements: [
          button('Replace key', ACTIONS.connectOpen, 'replace'),
          button('Disconnect', ACTIONS.connectRemove, 'remove', {
            style: 'danger',
            confirm: confirmDialog('Disconnect the Runbook API?', disconnectWarning(input.open ?? null), 'Disconnect'),
          }),
        ],
      });
    }
  }
  if (input.status && input.approvalLine !== undefined) {
    blocks.push({ type: 'section', text: mrkdwnText(`:lock: ${input.approvalLine}`) });
    if (input.canManage) {
      blocks.push({
        type: 'actions',
        block_id: 'home_settings',
        elements: [button('Approval settings', ACTIONS.settingsOpen, 'settings')],
      });
    }
  }
  blocks.push({ type: 'divider' });
  return blocks;
}
