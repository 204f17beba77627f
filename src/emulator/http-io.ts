// Reading requests and writing responses on node:http, in grpc-gateway's manner: JSON bodies,
// rpcStatus errors, and (for injected proxy faults) HTML error pages.
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { invalidArgument, RpcError } from './rpc-error.ts';

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads and parses a JSON body; an empty body is {}. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw invalidArgument('body: larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidArgument('body: invalid JSON');
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function sendRpcError(res: ServerResponse, error: RpcError): void {
  sendJson(res, error.httpStatus, error.toBody(), error.headers);
}

/** What a reverse proxy answers when the service behind it fails. */
export function sendHtmlError(res: ServerResponse, status: number): void {
  const payload = `<html><body><h1>${status} ${STATUS_CODES[status] ?? 'Error'}</h1></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

export { RpcError };

interface SafeParser<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

/** Parses with a zod schema; the first issue becomes a 400 naming the field. */
export function parseBody<T>(schema: SafeParser<T>, value: unknown, prefix = ''): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || 'body';
  throw invalidArgument(`${path}: ${issue.message}`);
}
