// The README's code map traces one click, Approve, and says which files of the Slack layer it runs
// through: at most five of its own, and the shared helpers it uses. This keeps that true by measuring it:
// the click goes through the request context (built as the middleware builds it, wired as context.ts
// wires it) into its listener over the real use case, with V8's precise coverage on; every file of
// src/slack/ that ran code must be named there, and each named as shared must be a kit file that at least
// three other features (or the watcher) reach.
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approvalsListeners } from '../../../../src/slack/approvals/register.ts';
import { registerListeners, requestContext } from '../../../../src/slack/context.ts';
import { attachContext } from '../../../../src/slack/kit/handler-context.ts';
import { ACTIONS } from '../../../../src/slack/kit/ids.ts';
import { NEEDS_APPROVAL, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { importGraph, SRC } from '../../architecture/source-imports.ts';
import { aliceRuns, type ListenerEnv, startListenerEnv } from '../listener-env.ts';

const SLACK = path.join(SRC, 'slack');
const README = path.resolve(SRC, '../README.md');

/** The backticked `.ts` paths of the README between `from` and `to`, as files under src/slack/. */
function namedBetween(from: string, to: string): string[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(from);
  const end = text.indexOf(to, start);
  expect({ from, found: start >= 0 && end > start }).toEqual({ from, found: true });
  return [...text.slice(start, end).matchAll(/`([\w/.-]+\.ts)`/g)].map((m) => path.join(SLACK, m[1]!));
}

/** Kit files that at least three features other than approvals, or the watcher, reach through their imports. */
function sharedKitFiles(): Set<string> {
  const graph = importGraph();
  const reach = (from: string, seen = new Set<string>()): Set<string> => {
    for (const next of graph.get(from) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      reach(next, seen);
    }
    return seen;
  };
  const users = new Map<string, Set<string>>();
  for (const file of graph.keys()) {
    const rel = path.relative(SRC, file).split(path.sep);
    const place = rel[0] === 'watch' ? 'watch' : rel[0] === 'slack' && rel.length > 2 ? rel[1]! : null;
    if (!place || place === 'kit' || place === 'approvals') continue;
    for (const reached of reach(file)) {
      if (!reached.startsWith(path.join(SLACK, 'kit') + path.sep)) continue;
      users.set(reached, (users.get(reached) ?? new Set()).add(place));
    }
  }
  return new Set([...users].filter(([, places]) => places.size >= 3 || places.has('watch')).map(([f]) => f));
}

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());

it('Approve runs through the Slack files the README names (at most five) and shared kit helpers only', async () => {
  const asked = await aliceRuns(env, NEEDS_APPROVAL);
  if (asked.kind !== 'approval-requested') throw new Error(`expected a request, got ${asked.kind}`);

  // The feature's registrations wired as the app wires them; Bolt's part is played by this fake app.
  const handlers = new Map<string, (args: unknown) => Promise<void>>();
  const app = { action: (c: { action_id: string }, fn: never) => handlers.set(c.action_id, fn), view: () => {} };
  registerListeners(app as unknown as App, approvalsListeners);
  const body = {
    type: 'block_actions',
    user: { id: 'U0APPROVER' },
    team: { id: 'T01' },
    channel: { id: 'C0APPROVALS' },
    trigger_id: 'trigger-1',
    actions: [{ type: 'button', action_id: ACTIONS.approvalApprove, value: asked.approval.id }],
  };
  const replies: unknown[] = [];
  const respond = async (message: unknown) => {
    replies.push(message);
  };

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage'); // counts from here on
  const context: Record<string, unknown> = {};
  attachContext(context, requestContext({ body, client: env.client, context, respond }, env.slackDeps));
  await handlers.get(ACTIONS.approvalApprove)!({ ack: env.ack, body, client: env.client, context, respond });
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();

  // It did approve and run (so the whole path ran): the request is approved, nothing was answered as an error.
  expect((await env.store.approvals.get(asked.approval.id))?.state).toBe('approved');
  expect(JSON.stringify(replies)).not.toMatch(/:no_entry:|:x:/);

  const ran = result
    .filter((s) => s.url.startsWith('file://') && s.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((s) => fileURLToPath(s.url))
    .filter((file) => file.startsWith(SLACK + path.sep));
  const own = namedBetween('Files of the Slack layer the click runs through', 'plus its use case');
  const helpers = namedBetween('Besides, it uses the helpers', 'approve-trace.test.ts');
  expect(own.length).toBeGreaterThan(0);
  expect(own.length).toBeLessThanOrEqual(5);
  // Each file named as the click's own really runs; each named as shared is shared.
  for (const file of own) expect(ran, path.relative(SLACK, file)).toContain(file);
  const shared = sharedKitFiles();
  expect(helpers.filter((file) => !shared.has(file)).map((f) => path.relative(SLACK, f))).toEqual([]);
  // Nothing else of the Slack layer runs.
  const unnamed = ran
    .filter((file) => !own.includes(file) && !helpers.includes(file))
    .map((f) => path.relative(SLACK, f));
  expect(unnamed).toEqual([]);
});
