// Bolt 5.1's HTTP receiver crashes on a signed body that parses to JSON null or a primitive
// (`payload=null`): it reads a property of null outside any try, the rejection is unhandled and the
// request never gets an answer. We buffer the body first (Bolt reuses an already-buffered body),
// answer 400 to those, and refuse bodies over the size limit before Bolt sees them.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

/** What Bolt will parse the body into: must be an object (or unparseable, which Bolt answers itself). */
export function parsesToNonObject(raw: string, contentType: string | undefined): boolean {
  let text: string | null = raw;
  if (!contentType?.includes('application/json')) {
    text = new URLSearchParams(raw).get('payload');
    if (text === null) return false;
  }
  try {
    const value: unknown = JSON.parse(text);
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the client still gets the 413.
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Wraps Bolt's request listener for POSTs to the events path. */
export function guardSlackRequests(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  eventsPath = '/slack/events',
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith(eventsPath)) {
      listener(req, res);
      return;
    }
    readBody(req)
      .then((raw) => {
        if (raw === null) {
          res.writeHead(413).end();
          return;
        }
        if (parsesToNonObject(raw.toString('utf8'), req.headers['content-type'])) {
          res.writeHead(400).end();
          return;
        }
        // Bolt takes an already-buffered request as is.
        (req as IncomingMessage & { rawBody: Buffer }).rawBody = raw;
        listener(req, res);
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(400).end();
      });
  };
}
