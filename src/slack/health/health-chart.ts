// The chart of `/runbook health <runbook>`: the report's days drawn as a PNG (src/health/chart.ts),
// uploaded as the bot's own file and shown in an image block through `slack_file`, with the numbers as
// text beside it. A private answer stays private: by default it goes to the person's DM with the bot;
// only `--here` posts it where they asked, for everyone there to see. Without the image (the upload
// failed, or Slack never took it) the numbers still arrive, with one sentence saying so.
import type { Workflow } from '../../api/schemas.ts';
import { renderHealthChart } from '../../health/chart.ts';
import type { RunbookHealth } from '../../health/runbook-health.ts';
import type { SlackMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { channelMention, truncate } from '../kit/mrkdwn.ts';
import { type ImagePostResult, postWithImage, uploadImage } from '../kit/post-image.ts';
import { openDm, slackErrorCode } from '../kit/post-to-conversation.ts';

export type ChartPlace = 'dm' | 'here';

export type ChartDelivery =
  | { kind: 'posted'; place: ChartPlace; channel: string; ts: string; withImage: boolean }
  /** It could not be posted where asked; `sentence` says why and what to do. */
  | { kind: 'failed'; sentence: string };

/** "restart-kubernetes-deployment-health.png" */
export function chartFileName(runbookName: string): string {
  const slug = runbookName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug || 'runbook'}-health.png`;
}

export const CHART_MISSING =
  'The chart could not be drawn or shown this time; the numbers above are complete. Ask again in a minute for the chart.';

export async function postHealthChart(
  ctx: HandlerContext,
  runbook: Pick<Workflow, 'name'>,
  report: RunbookHealth,
  numbers: SlackMessage,
  place: ChartPlace,
): Promise<ChartDelivery> {
  const { client, deps } = ctx;
  const logger = deps.logger.child({ component: 'health-chart' });
  let channel: string | null;
  try {
    channel = place === 'here' ? ctx.channelId : await openDm(client, ctx.userId);
  } catch (err) {
    logger.warn({ err: slackErrorCode(err) ?? err }, 'could not open the DM for the health chart');
    channel = null;
  }
  if (!channel) return { kind: 'failed', sentence: 'I could not open a direct message with you for the chart.' };
  const title = `${truncate(runbook.name, 100)}, last ${report.windowDays} days`;
  let fileId: string | null = null;
  try {
    const png = await renderHealthChart({ runbookName: runbook.name, days: report.daily });
    fileId = await uploadImage(client, logger, { png, filename: chartFileName(runbook.name), title });
  } catch (err) {
    // Drawing failed (no Skia binary for this platform, say): the numbers go without the picture.
    logger.error({ err }, 'could not draw the health chart');
  }
  const result: ImagePostResult = await postWithImage(
    client,
    logger,
    channel,
    {
      text: numbers.text,
      blocks: numbers.blocks,
      title,
      altText: altTextOf(runbook.name, report),
      withoutImage: CHART_MISSING,
    },
    fileId,
    // Asked in a thread (a mention there): the channel's copy goes into that thread.
    place === 'here' ? { threadTs: ctx.threadTs ?? null } : {},
  );
  if (result.kind === 'posted' || result.kind === 'posted_without_image') {
    return { kind: 'posted', place, channel: result.channel, ts: result.ts, withImage: result.kind === 'posted' };
  }
  if (result.kind === 'unknown') {
    return { kind: 'failed', sentence: 'Slack did not answer when I posted the chart; it may still arrive.' };
  }
  const where = place === 'here' ? channelMention(channel) : 'your direct messages with me';
  const fix =
    result.code === 'not_in_channel' || result.code === 'channel_not_found' ? ' Invite me there with `/invite`.' : '';
  return { kind: 'failed', sentence: `I could not post the chart in ${where} (Slack said \`${result.code}\`).${fix}` };
}

/** The picture in words, for screen readers and where images are off. */
export function altTextOf(
  runbookName: string,
  report: Pick<RunbookHealth, 'daily' | 'windowDays' | 'succeeded' | 'failed'>,
): string {
  const runsOf = (d: RunbookHealth['daily'][number]) => d.succeeded + d.failed + d.other;
  const busiest = report.daily.reduce<RunbookHealth['daily'][number] | null>(
    (top, d) => (runsOf(d) > (top ? runsOf(top) : 0) ? d : top),
    null,
  );
  const peak = busiest ? `; busiest day ${busiest.day} with ${runsOf(busiest)} runs` : '';
  return `Bar chart of ${truncate(runbookName, 100)} runs per day over the last ${report.windowDays} days by outcome (${report.succeeded} succeeded, ${report.failed} failed), with the median duration per day as a line${peak}.`;
}
