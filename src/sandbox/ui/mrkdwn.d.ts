// Types for mrkdwn.js, so Node tests can import the pure parser (the browser file has no build step).
export type MrkdwnNode =
  | { type: 'text' | 'code' | 'pre'; text: string }
  | { type: 'date'; seconds: number; format: string; text: string; link?: string }
  | { type: 'bold' | 'italic' | 'strike' | 'quote'; children: MrkdwnNode[] }
  | { type: 'br' }
  | { type: 'link'; url: string; children: MrkdwnNode[] }
  | { type: 'user' | 'channel' | 'group'; id: string; label: string }
  | { type: 'broadcast'; name: string };

export function decodeEntities(text: string): string;
export function emojify(text: string): string;
export function parseMrkdwn(text: string): MrkdwnNode[];
export function safeUrl(url: string): string | null;
export function knowsEmoji(name: string): boolean;
export function formatSlackDate(seconds: number, format: string, options?: { timeZone?: string; now?: number }): string;
export function renderMrkdwn(
  text: string,
  ctx?: {
    userName?: (id: string) => string;
    channelName?: (id: string) => string;
    groupName?: (id: string) => string | undefined;
    timeZone?: string;
  },
): DocumentFragment;
export function formatMessageTime(ts: string | number, timeZone?: string): string;
export function wallTimeOf(seconds: number, timeZone?: string): string;
export function instantOfWallTime(value: string, timeZone?: string): number | null;
