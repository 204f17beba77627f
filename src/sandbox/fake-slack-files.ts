// Slack's current file upload flow, faked: files.getUploadURLExternal hands out an upload URL and a
// file id, the client POSTs the bytes there, and files.completeUploadExternal shares the file into a
// channel or a thread (a message carrying `files`). files.upload is retired in Slack and not offered
// here either. Uploaded text is kept so tests can read it and the sandbox UI can show it.
import { storeBotMessage } from './fake-slack-chat.ts';
import {
  fail,
  isBotMember,
  type MethodArgs,
  type MethodContext,
  type MethodHandler,
  resolveChannel,
  str,
} from './fake-slack-context.ts';
import { mintSlackId } from './fake-slack-ids.ts';
import type { FakeFile } from './fake-slack-state.ts';

/** Slack refuses snippets and uploads it cannot take; 1 GB is its upload ceiling. */
const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** The path the upload URL points at; the server routes POSTs there to `receiveUpload`. */
export const UPLOAD_PATH = '/upload/';

function filesArg(args: MethodArgs): Array<{ id: string; title?: string }> | null {
  let raw = args.files;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(raw)) return null;
  const out: Array<{ id: string; title?: string }> = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null || typeof (item as { id?: unknown }).id !== 'string') return null;
    const { id, title } = item as { id: string; title?: unknown };
    out.push({ id, ...(typeof title === 'string' ? { title } : {}) });
  }
  return out;
}

/** The files.* methods; `origin` gives the server's base URL for upload links. */
export function fileMethods(origin: () => string): Record<string, MethodHandler> {
  const getUploadUrl: MethodHandler = (ctx, args) => {
    const filename = str(args, 'filename');
    const length = Number(str(args, 'length'));
    if (!filename || !Number.isInteger(length) || length <= 0) return fail('invalid_arguments');
    if (length > MAX_UPLOAD_BYTES) return fail('file_upload_size_restricted');
    const id = mintSlackId('F');
    ctx.state.files[id] = {
      id,
      name: filename,
      title: filename,
      size: length,
      mimetype: 'text/plain',
      filetype: str(args, 'snippet_type') ?? 'text',
      created: Math.floor(ctx.now() / 1000),
      user: ctx.state.botUserId,
      content: null,
      shared: false,
      url_private: `${origin()}/files/${id}`,
    };
    return { ok: true, upload_url: `${origin()}${UPLOAD_PATH}${id}`, file_id: id };
  };

  const completeUpload: MethodHandler = (ctx, args) => {
    const files = filesArg(args);
    if (!files || files.length === 0) return fail('invalid_arguments');
    const records: FakeFile[] = [];
    for (const f of files) {
      const record = ctx.state.files[f.id];
      if (!record || record.content === null) return fail('file_not_found');
      if (record.shared) return fail('file_already_completed');
      records.push(record);
    }
    const channelRef = str(args, 'channel_id') ?? str(args, 'channels');
    const threadTs = str(args, 'thread_ts');
    if (threadTs && !channelRef) return fail('invalid_arguments');
    let target: ReturnType<typeof resolveChannel>;
    if (channelRef) {
      target = resolveChannel(ctx.state, channelRef);
      if (!target) return fail('channel_not_found');
      if (!isBotMember(target)) return fail('not_in_channel');
    }
    for (const [i, record] of records.entries()) {
      record.shared = true;
      const title = files[i]?.title;
      if (title) record.title = title;
    }
    if (target) {
      const message = storeBotMessage(
        ctx,
        target.id,
        { text: str(args, 'initial_comment') ?? '', blocks: undefined, attachments: undefined, metadata: undefined },
        threadTs,
      );
      message.files = records.map((r) => ({ ...r }));
      ctx.emit('message', { kind: 'updated', channel: target.id, ts: message.ts, message });
    }
    return { ok: true, files: records.map((r) => ({ id: r.id, title: r.title, name: r.name, size: r.size })) };
  };

  return {
    'files.getUploadURLExternal': getUploadUrl,
    'files.completeUploadExternal': completeUpload,
  };
}

/** The POST of the bytes to an upload URL: 200 "OK - <bytes>" like Slack, 404 for an unknown file. */
export function receiveUpload(ctx: MethodContext, fileId: string, body: string): { status: number; text: string } {
  const record = ctx.state.files[fileId];
  if (!record || record.shared) return { status: 404, text: 'Not Found' };
  record.content = body;
  record.size = Buffer.byteLength(body, 'utf8');
  return { status: 200, text: `OK - ${record.size}` };
}
