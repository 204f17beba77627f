// Slack's current file upload flow, in one place: files.getUploadURLExternal → POST the bytes to the
// URL it gives → files.completeUploadExternal (files.upload is retired). With a channel the file is
// shared there (in a thread, with a comment); without one it stays the bot's own, to be shown in an
// image block through `slack_file`. A failure says at which step, and whether nothing can have been
// shared (`definite`): only a completion whose answer was lost may have shared the file anyway.
import type { WebClient } from '@slack/web-api';

export interface FileToUpload {
  filename: string;
  bytes: Buffer;
  /** Content type of the POST, e.g. "text/plain; charset=utf-8" or "image/png". */
  contentType: string;
  title: string;
  /** Share it into this channel (with `threadTs`, into that thread); absent: not shared anywhere. */
  channel?: string;
  threadTs?: string;
  initialComment?: string;
}

export type UploadStep = 'getUploadURLExternal' | 'upload' | 'completeUploadExternal';

export class UploadFailed extends Error {
  readonly step: UploadStep;
  /** True when nothing was shared for sure; false when the completion's outcome is unknown. */
  readonly definite: boolean;
  constructor(step: UploadStep, definite: boolean, cause: unknown) {
    super(`file upload failed at ${step}`, { cause });
    this.name = 'UploadFailed';
    this.step = step;
    this.definite = definite;
  }
}

/** Uploads the bytes; returns the file id, or throws UploadFailed. */
export async function uploadFile(
  client: WebClient,
  file: FileToUpload,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  let uploadUrl: string;
  let fileId: string;
  try {
    const got = await client.files.getUploadURLExternal({ filename: file.filename, length: file.bytes.length });
    if (!got.upload_url || !got.file_id) throw new Error('files.getUploadURLExternal gave no upload URL');
    uploadUrl = got.upload_url;
    fileId = got.file_id;
  } catch (err) {
    throw new UploadFailed('getUploadURLExternal', true, err);
  }
  try {
    const posted = await fetchImpl(uploadUrl, {
      method: 'POST',
      headers: { 'content-type': file.contentType },
      body: file.bytes,
      signal: AbortSignal.timeout(30_000),
    });
    await posted.arrayBuffer().catch(() => undefined);
    if (!posted.ok) throw new Error(`the upload URL answered HTTP ${posted.status}`);
  } catch (err) {
    // The file was never completed: nothing can have been shared.
    throw new UploadFailed('upload', true, err);
  }
  try {
    await client.files.completeUploadExternal({
      files: [{ id: fileId, title: file.title }],
      ...(file.channel ? { channel_id: file.channel } : {}),
      ...(file.channel && file.threadTs ? { thread_ts: file.threadTs } : {}),
      ...(file.channel && file.initialComment !== undefined ? { initial_comment: file.initialComment } : {}),
    } as Parameters<WebClient['files']['completeUploadExternal']>[0]);
  } catch (err) {
    throw new UploadFailed('completeUploadExternal', isSlackRefusal(err), err);
  }
  return fileId;
}

/** Slack answered, and said no (not a timeout or a lost connection): nothing was shared. */
export function isSlackRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'slack_webapi_platform_error' || code === 'slack_webapi_rate_limited_error';
}
