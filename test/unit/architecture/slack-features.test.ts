// The Slack layer by feature: src/slack/<feature>/ never imports another feature; kit/ (shared by the
// features and the watcher) imports no feature; command/ (the /runbook line, @mentions and pick lists)
// and app.ts compose the features, so no feature imports them back; src/watch/ takes only kit/.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, SRC } from './source-imports.ts';

const SLACK = path.join(SRC, 'slack');
/** Where a file sits in the Slack layer: a folder name, 'root' for app.ts and its siblings, null outside. */
function placeOf(file: string): string | null {
  const parts = path.relative(SLACK, file).split(path.sep);
  if (parts[0]!.startsWith('..')) return null;
  return parts.length > 1 ? parts[0]! : 'root';
}

/** May a file at `from` (null: outside src/slack/) import one at `to`? */
function allowed(from: string | null, to: string, inWatch: boolean): boolean {
  if (to === 'kit') return true;
  if (inWatch) return false; // the watcher posts through kit/ only
  if (from === null || from === 'root') return true; // runtime.ts and app.ts compose the features
  if (from === 'command') return to !== 'root'; // command/ hands each subcommand to its feature
  return false; // kit/ and every feature import only kit/ of the Slack layer
}

/** The imports that break the rule, as `from → to` (paths relative to src/). */
function ruleBreaks(graph: Map<string, string[]>): string[] {
  const breaks: string[] = [];
  for (const [file, targets] of graph) {
    const from = placeOf(file);
    const inWatch = path.relative(SRC, file).split(path.sep)[0] === 'watch';
    for (const target of targets) {
      const to = placeOf(target);
      if (to === null || to === from) continue;
      if (!allowed(from, to, inWatch)) breaks.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    }
  }
  return breaks.sort();
}

describe('the Slack layer by feature', () => {
  it('no feature imports another feature, app.ts or command/; kit/ imports no feature; src/watch/ only kit/', () => {
    expect(ruleBreaks(importGraph())).toEqual([]);
  });

  it('names each kind of break', () => {
    const at = (p: string) => path.join(SRC, p);
    const graph = new Map([
      [at('slack/run/views.ts'), [at('slack/schedules/schedules.ts'), at('slack/kit/ids.ts'), at('runs/run.ts')]],
      [at('slack/kit/run-start.ts'), [at('slack/approvals/expiry.ts')]],
      [at('slack/browse/browse.ts'), [at('slack/command/commands.ts'), at('slack/app.ts')]],
      [at('watch/watcher.ts'), [at('slack/kit/execution-card.ts'), at('slack/executions/execution-list.ts')]],
      [at('slack/command/commands.ts'), [at('slack/browse/browse.ts'), at('slack/app.ts')]],
      [at('slack/app.ts'), [at('slack/run/views.ts'), at('slack/command/commands.ts')]],
      [at('runtime.ts'), [at('slack/app.ts'), at('slack/approvals/expiry.ts')]],
    ]);
    expect(ruleBreaks(graph)).toEqual([
      'slack/browse/browse.ts → slack/app.ts',
      'slack/browse/browse.ts → slack/command/commands.ts',
      'slack/command/commands.ts → slack/app.ts',
      'slack/kit/run-start.ts → slack/approvals/expiry.ts',
      'slack/run/views.ts → slack/schedules/schedules.ts',
      'watch/watcher.ts → slack/executions/execution-list.ts',
    ]);
  });
});
