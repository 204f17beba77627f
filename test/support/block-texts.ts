// Every mrkdwn text of a surface: the only places Slack reads <…> as mentions, broadcasts and links.
export function mrkdwnTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) mrkdwnTexts(n, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
    for (const v of Object.values(o)) mrkdwnTexts(v, out);
  }
  return out;
}
