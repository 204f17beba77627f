// The short confirmation of a `--now` run: what will run, with what, where; Run / Edit / Cancel.
import type { KnownBlock } from '@slack/types';
import { button, type SlackMessage } from '../kit/common.ts';
import { formatInputs } from '../kit/execution-card.ts';
import { ACTIONS } from '../kit/ids.ts';
import type { CardInputs } from '../kit/input-summary.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, truncate } from '../kit/mrkdwn.ts';
import { proxyText } from '../kit/people.ts';

export interface RunConfirmation {
  runbookName: string;
  /** Inputs with secrets masked, under their schema titles as the form shows them (labelInputs). */
  inputs: CardInputs;
  proxyId: string;
  /** The proxy's display name (as cards show it); null: the id is shown. */
  proxyName?: string | null;
  /** Result channel; null → where it was typed (or a DM). */
  destination: string | null;
  /** The alias used, if any. */
  alias?: string | null;
  /** Said under the inputs (already escaped mrkdwn): the zone date-times typed without an offset were read in. */
  zoneNote?: string | null;
  /** Button value (the draft to run). */
  value: string;
}

export function buildRunConfirmation(c: RunConfirmation): SlackMessage {
  const name = escapeMrkdwn(truncate(c.runbookName, 200));
  const via = c.alias ? ` (alias \`${escapeMrkdwn(c.alias)}\`)` : '';
  const where = c.destination ? channelMention(c.destination) : 'here';
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(
        `Run *${name}*${via} now, on proxy ${proxyText({ id: c.proxyId, name: c.proxyName ?? null })}, result ${c.destination ? 'to ' : ''}${where}?`,
      ),
    },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${formatInputs(c.inputs)}`) },
    ...(c.zoneNote ? [{ type: 'context', elements: [mrkdwnText(`:clock3: ${c.zoneNote}`)] } as KnownBlock] : []),
    {
      type: 'actions',
      block_id: 'confirm_actions',
      elements: [
        button('Run', ACTIONS.confirmRun, c.value, { style: 'primary' }),
        button('Edit', ACTIONS.confirmEdit, c.value),
        button('Cancel', ACTIONS.confirmCancel, c.value),
      ],
    },
  ];
  return { text: `Run ${escapeMrkdwn(truncate(c.runbookName, 200))} now?`, blocks };
}
