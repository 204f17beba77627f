// Block Kit checks of the fake Web API. The rules are the bot's own (src/slack/kit/limits.ts),
// so a surface the builders' tests accept is one the fake accepts; only the wording is Slack's:
// "<problem> [json-pointer:/blocks/0/text/text]".
import { checkBlocks, checkView, type LimitViolation } from '../slack/kit/limits.ts';

/** blocks[3].text.text → /blocks/3/text/text */
export function toJsonPointer(path: string, prefix = ''): string {
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((p) => p !== '');
  return `${prefix}/${parts.join('/')}`.replace(/\/$/, '') || '/';
}

function describe(violations: LimitViolation[], prefix: string): string[] {
  return violations.map((v) => `${v.rule} [json-pointer:${toJsonPointer(v.path, prefix)}]`);
}

export function messageBlockErrors(blocks: unknown[]): string[] {
  return describe(checkBlocks(blocks, 'message'), '');
}

export function viewErrors(view: Record<string, unknown>): string[] {
  return describe(checkView(view), '/view');
}
