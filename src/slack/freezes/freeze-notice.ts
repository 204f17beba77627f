// Said where a schedule was made when a change freeze pauses or resumes it (runtime's minute work calls
// it). A failure costs only the notice; the pause or resume has happened.
import type { WebClient } from '@slack/web-api';
import type { FreezeNotice } from '../../runs/freezes.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { buildFreezeNotice } from './freeze-list.ts';

export async function announceFreeze(deps: Pick<SlackDeps, 'logger'>, client: WebClient, notice: FreezeNotice) {
  await client.chat
    .postMessage({ channel: notice.channel, ...buildFreezeNotice(notice) })
    .catch((err: unknown) => deps.logger.warn({ err, channel: notice.channel }, 'could not say a freeze change'));
}
