// The finished run's whole output, kept: when it is long (outputWorthAFile), the output is
// uploaded into the card's thread as a text file with Slack's current upload flow
// (kit/upload-file.ts: files.getUploadURLExternal → POST the bytes → files.completeUploadExternal). Called from the watcher's deliver step; it never throws, so a failed upload never holds
// up the result card or the reply.
//
// Exactly once across restarts and replicas: a store claim on the execution is taken BEFORE anything
// is sent, and given back only when the upload definitely did not happen (Slack said no to the URL,
// the bytes were refused, or completeUploadExternal answered an error). When the outcome of the
// completion is unknown (timeout, connection lost) the claim is kept: a lost file is better than two.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';
import { OUTPUT_FILE_MAX_BYTES, outputWorthAFile } from '../slack/kit/execution-card.ts';
import { escapeMrkdwn } from '../slack/kit/mrkdwn.ts';
import { UploadFailed, uploadFile } from '../slack/kit/upload-file.ts';
import type { Store } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';

/** The file keeps the last this-many bytes of a longer output (with a first line saying so); the card says so too. */
export const MAX_OUTPUT_FILE_BYTES = OUTPUT_FILE_MAX_BYTES;

export interface OutputUploadDeps {
  store: Store;
  slack: WebClient;
  logger: Logger;
  now: () => number;
  /** POSTs the bytes to the upload URL; default: global fetch. */
  fetch?: typeof fetch;
}

export interface OutputToUpload {
  executionId: string;
  runbookName: string;
  channel: string;
  /** The result card's ts: the file goes into its thread. */
  threadTs: string;
  output: string;
}

export type UploadOutcome = 'not_needed' | 'already_claimed' | 'uploaded' | 'failed' | 'unknown';

/** "restart-pods-3f2b9c1e.txt" */
export function outputFileName(runbookName: string, executionId: string): string {
  const slug =
    runbookName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'output';
  return `${slug}-${executionId.replace(/[^A-Za-z0-9-]/g, '').slice(0, 8) || 'run'}.txt`;
}

/** The output as the file holds it: whole, or its last MAX_OUTPUT_FILE_BYTES under a note. */
export function outputFileBody(output: string): string {
  const bytes = Buffer.from(output, 'utf8');
  if (bytes.length <= MAX_OUTPUT_FILE_BYTES) return output;
  // Cut on a line start so no line (or UTF-8 sequence) is split.
  let tail = bytes.subarray(bytes.length - MAX_OUTPUT_FILE_BYTES).toString('utf8');
  const newline = tail.indexOf('\n');
  if (newline >= 0) tail = tail.slice(newline + 1);
  return `[… the first ${(bytes.length - Buffer.byteLength(tail, 'utf8')).toLocaleString('en-US')} bytes are left out]\n${tail}`;
}

function lineCount(text: string): number {
  return text.replace(/\n+$/, '').split('\n').length;
}

/** Uploads the full output into the card's thread when it is long; at most once, ever. */
export async function uploadOutputOnce(deps: OutputUploadDeps, run: OutputToUpload): Promise<UploadOutcome> {
  if (!outputWorthAFile(run.output)) return 'not_needed';
  const log = deps.logger.child({ component: 'output-upload', executionId: run.executionId });
  // Kept per installation: another tenant's execution may have the same id.
  const installation = installationKey();
  let claimed: boolean;
  try {
    claimed = await deps.store.outputUploads.claim(run.executionId, deps.now(), installation);
  } catch (err) {
    log.warn({ err }, 'could not claim the output upload; not uploading');
    return 'failed';
  }
  if (!claimed) return 'already_claimed';
  const giveBack = async (err: unknown, step: string): Promise<'failed'> => {
    log.warn({ err, step }, 'output upload failed; the claim is given back');
    await deps.store.outputUploads
      .release(run.executionId, installation)
      .catch((e: unknown) => log.warn({ err: e }, 'could not give the upload claim back'));
    return 'failed';
  };

  const body = outputFileBody(run.output);
  const what =
    body === run.output ? 'Full output' : `The last ${MAX_OUTPUT_FILE_BYTES / (1024 * 1024)} MiB of the output`;
  let fileId: string;
  try {
    fileId = await uploadFile(
      deps.slack,
      {
        filename: outputFileName(run.runbookName, run.executionId),
        bytes: Buffer.from(body, 'utf8'),
        contentType: 'text/plain; charset=utf-8',
        title: `${what} of ${run.runbookName}`,
        channel: run.channel,
        threadTs: run.threadTs,
        // No execution id in backticks here: the watcher's read-back looks for that to find its reply.
        // The runbook name is text from outside: escaped (and the outgoing guard checks it again).
        initialComment: `${what} of ${escapeMrkdwn(run.runbookName)} (${lineCount(body).toLocaleString('en-US')} lines)`,
      },
      deps.fetch,
    );
  } catch (err) {
    // Nothing reached the thread for sure (Slack said no, or the bytes never arrived): a later
    // delivery may try again. A completion whose answer was lost keeps the claim: never doubled.
    if (!(err instanceof UploadFailed) || err.definite)
      return giveBack(err, err instanceof UploadFailed ? err.step : 'upload');
    log.warn({ err }, 'output upload outcome unknown; keeping the claim so it is never doubled');
    return 'unknown';
  }
  await deps.store.outputUploads
    .complete(run.executionId, fileId, deps.now(), installation)
    .catch((err: unknown) => log.warn({ err }, 'could not record the uploaded file'));
  return 'uploaded';
}
