// Ids become URL path segments only through here. An id from a person (`/runbook status .`) or a
// payload could otherwise change which resource is asked for: "." and ".." are dot segments that
// URL normalisation removes (GET /v1alpha1/executions/ is the list), an empty id asks for the
// collection. Everything else is encoded as one segment ("/", "?", "#" included). A bad id is refused
// before any request with InvalidIdError, which describeApiError words.
import { InvalidIdError } from './errors.ts';

export type IdKind = 'runbook' | 'execution' | 'schedule';

/** 1–200 visible characters (no spaces, no control characters), not a dot segment. */
const ID = /^[^\s\p{C}]{1,200}$/u;
const DOT_SEGMENT = /^\.{1,2}$/;

/** The id as one encoded path segment, or an InvalidIdError. */
export function pathSegment(kind: IdKind, id: unknown, at: { method: InvalidIdError['method']; path: string }): string {
  if (typeof id !== 'string' || !isValidId(id)) {
    throw new InvalidIdError({ kind, id: typeof id === 'string' ? id : String(id), method: at.method, path: at.path });
  }
  return encodeURIComponent(id);
}

/** Whether a string can be used as an id (for parsers that want to answer before calling the API). */
export function isValidId(id: string): boolean {
  return ID.test(id) && !DOT_SEGMENT.test(id);
}
