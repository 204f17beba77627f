// The workspace's approval settings form (many-workspace mode): the approvals channel (only where the
// operator names none) and the approver group (a user group the operator's policy names), with why a
// value was refused above the form.
import type { KnownBlock, ModalView } from '@slack/types';
import { mention } from '../../mentions.ts';
import type { InstallationSettingsRecord } from '../../store/installation-settings.ts';
import { infoModal } from '../kit/common.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, plainText } from '../kit/mrkdwn.ts';
import { settingsSummary } from '../kit/tenancy.ts';

const TITLE = 'Approval settings';

export interface SettingsModalInput {
  current: InstallationSettingsRecord | null;
  /** APPROVALS_CHANNEL: when set, the channel is not asked for. */
  operatorChannel: string | null;
  /** The user groups the policy names (the only ones allowed). */
  allowedGroups: readonly string[];
  /** Why the last attempt saved nothing. */
  problem?: string;
}

export function buildSettingsModal(input: SettingsModalInput): ModalView {
  const blocks: KnownBlock[] = [];
  if (input.problem) blocks.push({ type: 'section', text: mrkdwnText(`:warning: ${escapeMrkdwn(input.problem)}`) });
  blocks.push({
    type: 'section',
    text: mrkdwnText(
      "These settings can only narrow what the operator's policy allows: they apply to this workspace's approval requests.",
    ),
  });
  if (input.operatorChannel) {
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `*Approvals channel*\n${channelMention(input.operatorChannel)}, set by the operator for every workspace.`,
      ),
    });
  } else {
    const initial = input.current?.approvalsChannel;
    blocks.push({
      type: 'input',
      block_id: BLOCKS.settingsChannel,
      optional: true,
      label: plainText('Approvals channel', 2000),
      hint: plainText(
        'Approval requests are posted here (invite the app). Empty: each approver gets a direct message.',
        2000,
      ),
      element: {
        type: 'conversations_select',
        action_id: ACTIONS.settingsChannel,
        filter: { include: ['public', 'private'], exclude_bot_users: true, exclude_external_shared_channels: true },
        ...(initial ? { initial_conversation: initial } : {}),
      },
    });
  }
  const allowed = input.allowedGroups.length
    ? input.allowedGroups.map((g) => `${escapeMrkdwn(mention.group(g))} \`${g}\``).join(', ')
    : 'none (the policy names no user group, so this cannot be set)';
  blocks.push({
    type: 'input',
    block_id: BLOCKS.settingsGroup,
    optional: true,
    label: plainText('Approver group (user group id)', 2000),
    hint: plainText('Only its members may approve. Empty: the approvers the policy names.', 2000),
    element: {
      type: 'plain_text_input',
      action_id: ACTIONS.settingsGroup,
      placeholder: plainText('S012ABC', 150),
      max_length: 40,
      ...(input.current?.approverGroup ? { initial_value: input.current.approverGroup } : {}),
    },
  });
  blocks.push({ type: 'context', elements: [mrkdwnText(`Groups the policy allows: ${allowed}`)] });
  return {
    type: 'modal',
    callback_id: VIEWS.settings,
    title: plainText(TITLE, 24),
    submit: plainText('Save', 24),
    close: plainText('Cancel', 24),
    blocks,
  };
}

export function settingsSavedModal(record: InstallationSettingsRecord, operatorChannel: string | null): ModalView {
  return infoModal(TITLE, `:white_check_mark: Saved. ${settingsSummary(record, operatorChannel)}`);
}
