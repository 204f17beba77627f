// Block Kit text limits the form builder must respect. Slack rejects a whole view when one
// string is too long, so every user- or schema-supplied string is cut before it reaches a block.

export const LIMITS = {
  label: 2000,
  hint: 2000,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  options: 100,
  blockId: 255,
  actionId: 255,
  initialValue: 3000,
  textLength: 3000,
} as const;

/**
 * Cuts `text` to at most `max` UTF-16 units, ending with an ellipsis when cut, without splitting a
 * surrogate pair (a half emoji makes Slack reject the payload).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + '…';
}

/** Slack plain_text objects must not be empty; `fallback` is used when `text` is blank. */
export function plainText(text: string, max: number, fallback = ' '): { type: 'plain_text'; text: string } {
  const value = text.trim() === '' ? fallback : text;
  return { type: 'plain_text', text: truncate(value, max) };
}
