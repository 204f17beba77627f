// Builders of change freezes: `/runbook freezes` (the policy's windows for this workspace, on now or next), a granted
// break-glass pass, and the notice said where a schedule was made when a freeze pauses or resumes it.
import type { KnownBlock } from '@slack/types';
import type { FreezeListing, FreezeNotice } from '../../runs/freezes.ts';
import type { SlackMessage } from '../kit/common.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, plainText, slackDate, truncate } from '../kit/mrkdwn.ts';

const at = (ms: number) => slackDate(Math.floor(ms / 1000), `${new Date(ms).toISOString().slice(0, 16)} UTC`);

export function buildFreezeList(freezes: FreezeListing[]): SlackMessage {
  if (freezes.length === 0) {
    const text = 'No change freezes are declared in the policy.';
    return { text, blocks: [{ type: 'section', text: mrkdwnText(text) }] };
  }
  const lines = freezes.slice(0, 40).map((f) => {
    const name = `*${escapeMrkdwn(truncate(f.name, 80))}*`;
    if (f.activeUntil !== null) return `:snowflake: ${name}: *on now*, until ${at(f.activeUntil)}`;
    if (f.nextStart !== null) return `:calendar: ${name}: next from ${at(f.nextStart)}`;
    return `:white_small_square: ${name}: over`;
  });
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Change freezes', 150) },
    { type: 'section', text: mrkdwnText(lines.join('\n')) },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: 'Inside a freeze, runs it covers are refused and the schedules it covers are paused until it ends. An approver can break it for one run: `/runbook freezes break <runbook> --reason "why"`.',
        },
      ],
    },
  ];
  const on = freezes.filter((f) => f.activeUntil !== null).length;
  return { text: `Change freezes: ${freezes.length} declared, ${on} on now.`, blocks };
}

export function buildPassGranted(pass: { runbookName: string; freeze: string; expiresAt: number }): SlackMessage {
  const line = `:rotating_light: Break-glass: your next run of *${escapeMrkdwn(truncate(pass.runbookName, 150))}* may start inside the change freeze *${escapeMrkdwn(truncate(pass.freeze, 80))}* (once, until ${at(pass.expiresAt)}). Your reason is in the audit trail.`;
  return {
    text: `Break-glass: your next run of ${escapeMrkdwn(truncate(pass.runbookName, 150))} may start inside the freeze.`,
    blocks: [{ type: 'section', text: mrkdwnText(line) }],
  };
}

export function buildFreezeNotice(notice: FreezeNotice): SlackMessage {
  const what = `the schedule of *${escapeMrkdwn(truncate(notice.runbookName, 150))}* (${inlineCode(notice.cron, 80)})`;
  const freeze = `*${escapeMrkdwn(truncate(notice.freeze, 80))}*`;
  const line =
    notice.kind === 'paused'
      ? `:snowflake: Paused ${what} for the change freeze ${freeze}${notice.until !== null ? ` until ${at(notice.until)}` : ''}; it resumes by itself when the freeze ends.`
      : `:arrow_forward: Resumed ${what}: the change freeze ${freeze} has ended.`;
  const text =
    notice.kind === 'paused'
      ? `Paused the schedule of ${escapeMrkdwn(truncate(notice.runbookName, 150))} for the change freeze ${escapeMrkdwn(truncate(notice.freeze, 80))}.`
      : `Resumed the schedule of ${escapeMrkdwn(truncate(notice.runbookName, 150))}: the change freeze ${escapeMrkdwn(truncate(notice.freeze, 80))} has ended.`;
  return { text, blocks: [{ type: 'section', text: mrkdwnText(line) }] };
}
