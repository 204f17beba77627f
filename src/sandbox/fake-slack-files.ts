// Slack's current file upload flow, faked: files.getUploadURLExternal hands out an upload URL and a
// file id, the client POSTs the bytes there, and files.completeUploadExternal shares the file into a
// channel or a thread (a message carrying `files`), or, without a channel, keeps it for the bot to show
// in an image block through `slack_file`. files.upload is retired in Slack and not offered here either.
// Uploaded text is kept so tests can read it and the sandbox UI can show it; an image (PNG, JPEG, GIF, by
// its first bytes) is kept as bytes and served to the sandbox UI. As in Slack, an image completed a
// moment ago may not be ready for `slack_file` yet (`processingMs`): a message naming it is refused with
// "invalid slack file" until it is.
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
import type { FakeFile, FakeSlackState } from './fake-slack-state.ts';

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
export function fileMethods(origin: () => string, processingMs = 0): Record<string, MethodHandler> {
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
      uploaded: false,
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
      if (!record?.uploaded) return fail('file_not_found');
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
      record.ready_at = ctx.now() + processingMs;
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

const IMAGE_KINDS: Array<{ magic: number[]; mimetype: string; filetype: string }> = [
  { magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], mimetype: 'image/png', filetype: 'png' },
  { magic: [0xff, 0xd8, 0xff], mimetype: 'image/jpeg', filetype: 'jpg' },
  { magic: [0x47, 0x49, 0x46, 0x38], mimetype: 'image/gif', filetype: 'gif' },
];

function imageKind(bytes: Buffer): (typeof IMAGE_KINDS)[number] | undefined {
  return IMAGE_KINDS.find((k) => k.magic.every((b, i) => bytes[i] === b));
}

/** The POST of the bytes to an upload URL: 200 "OK - <bytes>" like Slack, 404 for an unknown file. */
export function receiveUpload(ctx: MethodContext, fileId: string, body: Buffer): { status: number; text: string } {
  const record = ctx.state.files[fileId];
  if (!record || record.shared) return { status: 404, text: 'Not Found' };
  const image = imageKind(body);
  record.uploaded = true;
  record.size = body.length;
  ctx.state.fileBytes[fileId] = body;
  if (image) {
    record.content = null;
    record.mimetype = image.mimetype;
    record.filetype = image.filetype;
  } else record.content = body.toString('utf8');
  return { status: 200, text: `OK - ${record.size}` };
}

/** The bytes of a completed file, and its type, for the sandbox UI; undefined when there is none. */
export function servedFile(state: FakeSlackState, fileId: string): { mimetype: string; bytes: Buffer } | undefined {
  const file = state.files[fileId];
  const bytes = state.fileBytes[fileId];
  if (!file?.shared || !bytes) return undefined;
  return { mimetype: file.mimetype, bytes };
}

const SLACK_FILE_ID = /^F[A-Z0-9]{8,}$/;

/**
 * What Slack says of every `slack_file` in these blocks (image blocks, section accessories, context
 * images) that it could not show: no such file, not completed, not an image, or not processed yet.
 */
export function slackFileErrors(state: FakeSlackState, blocks: unknown[], nowMs: number, prefix = ''): string[] {
  const errors: string[] = [];
  const check = (image: unknown, pointer: string) => {
    if (typeof image !== 'object' || image === null) return;
    const ref = (image as { slack_file?: unknown }).slack_file;
    if (ref === undefined) return;
    const { id, url } = (typeof ref === 'object' && ref !== null ? ref : {}) as { id?: unknown; url?: unknown };
    const file =
      typeof id === 'string' && SLACK_FILE_ID.test(id)
        ? state.files[id]
        : typeof url === 'string' && id === undefined
          ? Object.values(state.files).find((f) => f.url_private === url)
          : undefined;
    const usable =
      file?.shared === true &&
      file.user === state.botUserId &&
      IMAGE_KINDS.some((k) => k.mimetype === file.mimetype) &&
      (file.ready_at ?? 0) <= nowMs;
    if (!usable) errors.push(`invalid slack file [json-pointer:${prefix}${pointer}/slack_file]`);
  };
  blocks.forEach((block, i) => {
    if (typeof block !== 'object' || block === null) return;
    const b = block as { type?: unknown; accessory?: unknown; elements?: unknown };
    if (b.type === 'image') check(b, `/blocks/${i}`);
    if (b.type === 'section') check(b.accessory, `/blocks/${i}/accessory`);
    if (b.type === 'context' && Array.isArray(b.elements)) {
      b.elements.forEach((e, j) => {
        if ((e as { type?: unknown } | null)?.type === 'image') check(e, `/blocks/${i}/elements/${j}`);
      });
    }
  });
  return errors;
}
