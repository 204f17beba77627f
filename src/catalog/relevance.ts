// How well a runbook matches the words of a `/runbook list` search: a word in the name counts more
// than one in the description, which counts more than a tag; a name that starts with the first word
// comes first of all. Pure; the catalog sorts its browse results with it (ties stay alphabetical).
import type { Workflow } from '../api/schemas.ts';

/** Lower is better; 0 is "every word in the name, and the name starts with the first". */
export function relevance(runbook: Pick<Workflow, 'name' | 'description' | 'tags'>, words: readonly string[]): number {
  const name = runbook.name.toLowerCase();
  const description = runbook.description.toLowerCase();
  const tags = runbook.tags.map((t) => t.toLowerCase());
  let score = words.length > 0 && name.startsWith(words[0]!) ? 0 : 1;
  for (const word of words) {
    if (name.includes(word)) continue;
    if (description.includes(word)) score += 10;
    else if (tags.some((t) => t.includes(word))) score += 100;
    else score += 1000;
  }
  return score;
}

/** `items` best match first; equal scores keep their order (stable sort). */
export function rankByRelevance<T>(
  items: readonly T[],
  words: readonly string[],
  runbookOf: (item: T) => Workflow,
): T[] {
  if (words.length === 0) return [...items];
  return items
    .map((item, i) => ({ item, i, score: relevance(runbookOf(item), words) }))
    .sort((a, b) => a.score - b.score || a.i - b.i)
    .map((x) => x.item);
}
