// Types for mrkdwn.js, so Node tests can import the pure parser (the browser file has no build step).
export type MrkdwnNode =
  | { type: 'text' | 'code' | 'pre' | 'date'; text: string }
  | { type: 'bold' | 'italic' | 'strike' | 'quote'; children: MrkdwnNode[] }
  | { type: 'br' }
  | { type: 'link'; url: string; children: MrkdwnNode[] }
  | { type: 'user' | 'channel'; id: string; label: string }
  | { type: 'broadcast'; name: string };

export function decodeEntities(text: string): string;
export function emojify(text: string): string;
export function parseMrkdwn(text: string): MrkdwnNode[];
export function safeUrl(url: string): string | null;
export function renderMrkdwn(
  text: string,
  ctx?: { userName?: (id: string) => string; channelName?: (id: string) => string },
): DocumentFragment;
