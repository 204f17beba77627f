// A message that shows a picture the bot made (a chart): the PNG is uploaded with the current upload
// flow and kept as the bot's own file (shared nowhere by itself), then the message shows it in an image
// block through `slack_file: { id }`, next to the numbers as text. Slack processes an upload after
// completing it, and refuses a `slack_file` it has not processed yet ("invalid slack file"): that
// refusal is waited out a few times (about 7 s in all). When the upload fails or the image is never
// accepted, the message goes without it and says so in one sentence: the numbers always arrive.
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.ts';
import { type PostOnceOutcome, postOnce } from './post-once.ts';
import { uploadFile } from './upload-file.ts';

export interface ImageToUpload {
  png: Buffer;
  filename: string;
  title: string;
}

export interface ImageMessage {
  text: string;
  /** The numbers (at most 49 blocks); the image block goes after them. */
  blocks: KnownBlock[];
  /** Plain text: the image's title above it, and its alt text. */
  title: string;
  altText: string;
  /** One sentence, shown in the image's place when it could not be shown. */
  withoutImage: string;
}

export type ImagePostResult =
  | { kind: 'posted'; channel: string; ts: string; fileId: string }
  | { kind: 'posted_without_image'; channel: string; ts: string }
  /** Slack refused the message itself (not the image): nothing was posted. */
  | { kind: 'refused'; code: string }
  | { kind: 'unknown' };

export interface ImagePostOptions {
  sleep?: (ms: number) => Promise<void>;
  /** Waits before each new try while Slack has not processed the image yet. */
  notReadyWaitsMs?: readonly number[];
  /** Post in this thread of the channel. */
  threadTs?: string | null;
}

const NOT_READY_WAITS_MS = [500, 1000, 2000, 4000];

/** Uploads the picture as the bot's own file; its id, or null when the upload failed (logged). */
export async function uploadImage(
  client: WebClient,
  logger: Logger,
  image: ImageToUpload,
  fetchImpl?: typeof fetch,
): Promise<string | null> {
  try {
    return await uploadFile(
      client,
      { filename: image.filename, bytes: image.png, contentType: 'image/png', title: image.title },
      fetchImpl,
    );
  } catch (err) {
    logger.warn({ err }, 'image upload failed; the message goes without it');
    return null;
  }
}

export function imageBlock(fileId: string, title: string, altText: string): KnownBlock {
  return {
    type: 'image',
    slack_file: { id: fileId },
    alt_text: altText.slice(0, 2000),
    title: { type: 'plain_text', text: title.slice(0, 2000) },
  } as KnownBlock;
}

/** Slack refused a `slack_file` of these blocks (not processed yet, or not the bot's to show). */
function refusedTheImage(outcome: PostOnceOutcome): boolean {
  if (outcome.kind !== 'refused' || outcome.code !== 'invalid_blocks') return false;
  const errors = (outcome.error as { data?: { errors?: unknown } } | null)?.data?.errors;
  return Array.isArray(errors) && errors.some((e) => typeof e === 'string' && e.includes('slack_file'));
}

function resultOf(outcome: PostOnceOutcome, fileId: string | null): ImagePostResult {
  if (outcome.kind === 'posted') {
    return fileId
      ? { kind: 'posted', channel: outcome.channel, ts: outcome.ts, fileId }
      : { kind: 'posted_without_image', channel: outcome.channel, ts: outcome.ts };
  }
  if (outcome.kind === 'refused') return { kind: 'refused', code: outcome.code };
  return { kind: 'unknown' };
}

/** Posts the message with the uploaded image (fileId null: without it, saying so). */
export async function postWithImage(
  client: WebClient,
  logger: Logger,
  channel: string,
  message: ImageMessage,
  fileId: string | null,
  options: ImagePostOptions = {},
): Promise<ImagePostResult> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const thread = options.threadTs ? { threadTs: options.threadTs } : {};
  if (fileId) {
    const blocks = [...message.blocks, imageBlock(fileId, message.title, message.altText)];
    const waits = options.notReadyWaitsMs ?? NOT_READY_WAITS_MS;
    for (let attempt = 0; ; attempt++) {
      const outcome = await postOnce(client, channel, { text: message.text, blocks, ...thread });
      if (!refusedTheImage(outcome)) return resultOf(outcome, fileId);
      const wait = waits[attempt];
      if (wait === undefined) break;
      await sleep(wait);
    }
    logger.warn({ fileId, channel }, 'Slack never accepted the uploaded image; the message goes without it');
  }
  const note: KnownBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: message.withoutImage }] };
  const outcome = await postOnce(client, channel, { text: message.text, blocks: [...message.blocks, note], ...thread });
  return resultOf(outcome, null);
}
