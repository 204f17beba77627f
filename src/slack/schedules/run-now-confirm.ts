// "Run now" asks first: a schedule's Run now runs its runbook at once, perhaps on someone else's
// production schedule, so the click shows what would run — the runbook, its inputs (secrets masked),
// the proxy, the schedule's owner and where the result goes — with Run now / Cancel. Pure.
import type { KnownBlock } from '@slack/types';
import { button, type SlackMessage } from '../kit/common.ts';
import { compactInputs } from '../kit/execution-card.ts';
import { ACTIONS } from '../kit/ids.ts';
import type { LabelledInput } from '../kit/input-summary.ts';
import { channelMention, escapeMrkdwn, inlineCode, mrkdwnText, truncate } from '../kit/mrkdwn.ts';
import { type PersonRef, type ProxyRef, personText, proxyText } from '../kit/people.ts';

export interface RunNowConfirmation {
  scheduleId: string;
  runbookName: string;
  /** Under their titles, secrets masked. */
  inputs: readonly LabelledInput[];
  proxy: ProxyRef;
  /** Who owns the schedule (created it in Slack, or the API's userEmail). */
  owner: PersonRef | null;
  /** The cron expression and its English, for "the schedule …". */
  cron: string;
  cronEnglish: string;
  /** The person asking is not the owner: said plainly. */
  someoneElses: boolean;
  /** Where the result goes when not here (the channel's default result channel). */
  destination?: string | null;
}

/** Inputs shown in the confirmation (all that fit; the rest counted). */
const CONFIRM_INPUTS_SHOWN = 15;

export function buildRunNowConfirmation(c: RunNowConfirmation): SlackMessage {
  const name = escapeMrkdwn(truncate(c.runbookName, 200));
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(
        `:warning: Run *${name}* now, outside its schedule ${inlineCode(truncate(c.cron, 100))} (${escapeMrkdwn(truncate(c.cronEnglish, 200))})?${c.someoneElses ? ' This is someone else’s schedule.' : ''}`,
      ),
    },
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Runbook*\n${name}`, 2000),
        mrkdwnText(`*Proxy*\n${proxyText(c.proxy)}`, 2000),
        mrkdwnText(`*Schedule owner*\n${personText(c.owner, 'unknown')}`, 2000),
        mrkdwnText(`*Result to*\n${c.destination ? channelMention(c.destination) : 'here'}`, 2000),
      ],
    },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${compactInputs([...c.inputs], CONFIRM_INPUTS_SHOWN)}`) },
    {
      type: 'actions',
      block_id: 'run_now_confirm',
      elements: [
        button('Run now', ACTIONS.scheduleRunNowConfirmed, c.scheduleId, { style: 'danger' }),
        button('Cancel', ACTIONS.scheduleRunNowCancel, c.scheduleId),
      ],
    },
  ];
  return { text: `Run ${escapeMrkdwn(truncate(c.runbookName, 200))} now?`, blocks };
}
