// Calls a listener callback the way Bolt would, without Bolt (Slack's bolt-ts starter template style):
// a fake ack / respond / client that record what they are given, and a fake request context over the
// real use cases (the emulator behind the real API client, a SQLite store, a parsed policy).
import type { WebClient } from '@slack/web-api';
import { createLogger } from '../../../src/logger.ts';
import { type RunResult, runFromForm } from '../../../src/runs/run.ts';
import { actorFor } from '../../../src/slack/kit/actor.ts';
import type { SlackDeps } from '../../../src/slack/kit/deps.ts';
import type { HandlerContext, Reply } from '../../../src/slack/kit/handler-context.ts';
import { Identity } from '../../../src/slack/kit/identity.ts';
import { createMetadataSeal } from '../../../src/slack/kit/metadata-seal.ts';
import { Places } from '../../../src/slack/kit/places.ts';
import { RunDrafts } from '../../../src/slack/kit/run-drafts.ts';
import { PARAMS } from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from '../runs/use-case-env.ts';

export interface Call {
  method: string;
  args: Record<string, unknown>;
}

/** Channels every fake person is a member of (the destination checks ask Slack). */
export const MEMBER_OF = ['C01OPS', 'C02DEPLOYS'];

function answerOf(method: string, args: Record<string, unknown>): Record<string, unknown> {
  switch (method) {
    case 'users.info':
      return { user: { id: args.user, profile: { email: `${String(args.user).toLowerCase()}@example.com` } } };
    case 'usergroups.users.list':
      return { users: [] };
    case 'conversations.open':
      return { channel: { id: `D${String(args.users)}` } };
    case 'conversations.info':
      return { channel: { id: args.channel, is_channel: true, is_member: true } };
    case 'users.conversations':
      return { channels: MEMBER_OF.map((id) => ({ id })), response_metadata: { next_cursor: '' } };
    case 'conversations.history':
    case 'conversations.replies':
      return { messages: [] };
    case 'chat.postMessage':
      return { channel: args.channel, ts: '1700000000.000100' };
    case 'chat.postEphemeral':
      return { message_ts: '1700000000.000200' };
    case 'chat.getPermalink':
      return { permalink: `https://slack.example/archives/${String(args.channel)}/p1` };
    case 'views.open':
    case 'views.update':
    case 'views.push':
    case 'views.publish':
      return { view: { id: 'V0VIEW', hash: 'h1' } };
    default:
      return {};
  }
}

/** A WebClient whose every call (`client.chat.postMessage(…)`) is recorded and answered plausibly. */
export function fakeClient(calls: Call[]): WebClient {
  const at = (method: string): unknown =>
    new Proxy(
      async (args: Record<string, unknown> = {}) => {
        calls.push({ method, args });
        return { ok: true, ...answerOf(method, args) };
      },
      {
        get: (_f, prop) =>
          typeof prop === 'string' && prop !== 'then' ? at(method ? `${method}.${prop}` : prop) : undefined,
      },
    );
  return at('') as WebClient;
}

export interface RunSent {
  runbook: string;
  params: Record<string, unknown>;
  proxyId: string;
}

export interface ListenerEnv extends UseCaseEnv {
  slackDeps: SlackDeps;
  /** What the client was asked, in order. */
  calls: Call[];
  client: WebClient;
  /** What the listener answered through `respond`. */
  replies: Reply[];
  /** What it acked with (undefined for a bare ack). */
  acks: unknown[];
  ack: (response?: unknown) => Promise<void>;
  /** A request context for `userId` acting in `channelId`. */
  context(userId?: string, channelId?: string | null): HandlerContext;
  /** What reached the Runbook API for each run started since `reset()`: runbook, params, proxy. */
  runs(): RunSent[];
  /** Client calls of `method`. */
  called(method: string): Call[];
  reset(): void;
}

export async function startListenerEnv(policyYaml: string): Promise<ListenerEnv> {
  const env = await startUseCaseEnv(policyYaml);
  const logger = createLogger({ level: 'silent' });
  const calls: Call[] = [];
  const replies: Reply[] = [];
  const acks: unknown[] = [];
  const client = fakeClient(calls);
  const executions = env.emulator.state.executions;
  let executionsAtReset = executions.size;
  const slackDeps: SlackDeps = {
    ...env.deps,
    drafts: new RunDrafts({ store: env.store.runDrafts }),
    access: {
      ...env.deps.access,
      identity: new Identity({ groups: [], logger }),
      places: new Places({ logger }),
      seal: createMetadataSeal('xoxb-listener-tests'),
      runLimit: env.deps.access.runLimit as SlackDeps['access']['runLimit'],
    },
  };
  return {
    ...env,
    slackDeps,
    calls,
    client,
    replies,
    acks,
    ack: async (response?: unknown) => {
      acks.push(response);
    },
    context(userId = 'U01ALICE', channelId = 'C01OPS') {
      return {
        deps: slackDeps,
        client,
        userId,
        teamId: 'T01',
        enterpriseId: null,
        channelId,
        triggerId: 'trigger-1',
        respond: async (reply) => {
          replies.push(reply);
        },
        actor: (options = {}) => actorFor(slackDeps, client, { userId, teamId: 'T01', channelId }, options),
        refreshHome: async () => {
          calls.push({ method: 'refreshHome', args: { userId } });
        },
      };
    },
    called: (method) => calls.filter((c) => c.method === method),
    runs: () =>
      executions.ordered
        .slice(executionsAtReset)
        .map((r) => ({ runbook: r.workflowName, params: r.params, proxyId: r.received.proxyId })),
    reset() {
      executionsAtReset = executions.size;
      calls.length = 0;
      replies.length = 0;
      acks.length = 0;
    },
  };
}

/** A Slack view as the listeners built it. */
export interface ShownView {
  type: string;
  callback_id?: string;
  private_metadata?: string;
  title?: { text: string };
  blocks: Array<Record<string, unknown>>;
}

/** The views opened or updated, in order (a loading view first, then what replaced it). */
export function viewsShown(env: ListenerEnv): ShownView[] {
  return env.calls
    .filter((c) => c.method === 'views.open' || c.method === 'views.update')
    .map((c) => c.args.view as ShownView);
}

/** The last view shown (what the person sees in the end). */
export function lastView(env: ListenerEnv): ShownView {
  const views = viewsShown(env);
  const view = views[views.length - 1];
  if (!view) throw new Error('no view was shown');
  return view;
}

/** The block `blockId` of a view (an input block: its element is there to read). */
export function blockOf(
  view: ShownView,
  blockId: string,
): Record<string, unknown> & { element: Record<string, unknown> } {
  const found = view.blocks.find((b) => b.block_id === blockId);
  if (!found) throw new Error(`no block ${blockId} in ${view.blocks.map((b) => b.block_id).join(', ')}`);
  return found as Record<string, unknown> & { element: Record<string, unknown> };
}

/** The text of everything a listener showed (replies, messages, views), for assertions on what it rendered. */
export function shown(env: ListenerEnv): string {
  return JSON.stringify([env.replies, env.calls.filter((c) => !c.method.startsWith('users.')), env.acks]);
}

/** Alice submits the run form of `runbookName` in #ops with the authorization cases' values: a run, or a request. */
export async function aliceRuns(env: ListenerEnv, runbookName: string): Promise<RunResult> {
  const runbook = await env.runbook(runbookName);
  const alice = { userId: 'U01ALICE', teamId: 'T01', email: 'alice@example.com', groups: [] };
  return runFromForm(
    env.slackDeps,
    { ...alice, channelId: 'C01OPS', destinationChannel: 'C01OPS' },
    { runbook, proxyId: 'proxy-dev', params: PARAMS[runbookName]! },
  );
}
