// Every entry point that acts on a runbook × every authorization case, through the use-case layer
// alone (no Bolt, no Slack): the outcome, the audit record of a denial, and that nothing on the Runbook
// API changes when the answer is no. A new entry point (Workflow Builder step, mention, alias) adds a row
// to ENTRY_POINTS; its expectations for the five cases are the spec of how it is guarded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workflow } from '../../../src/api/schemas.ts';
import { type Actor, actor } from '../../../src/runs/actor.ts';
import { addAlias, removeAlias } from '../../../src/runs/aliases.ts';
import { approveRequest, rejectRequest } from '../../../src/runs/approvals.ts';
import { readAuditTrail } from '../../../src/runs/audit-trail.ts';
import { askApproval, checkRunForm, runFromForm, runScheduleNow } from '../../../src/runs/run.ts';
import { checkRunWithoutApproval, runWithoutApproval } from '../../../src/runs/run-direct.ts';
import type { RunEntry } from '../../../src/runs/run-entry.ts';
import { deleteSchedule, saveSchedule } from '../../../src/runs/schedules.ts';
import { subscribe, subscriberMayView, watchExecution } from '../../../src/runs/subscriptions.ts';
import { type Look, runbookNamed, visibilityFor } from '../../../src/runs/visibility.ts';
import {
  AUDIT_ONLY,
  CASES,
  type CaseName,
  type Outcome,
  PARAMS,
  PLAIN,
  SAME_AS_RUN,
  TABLE_POLICY,
  VIEW_ONLY,
} from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

interface EntryPoint {
  name: string;
  /** The audit action of a refusal on this path (null: refusals here are not a person's action). */
  auditAction: string | null;
  /** For a run (or its form / confirmation): the entry point its refusal's record names last (`; via …`). */
  via?: RunEntry;
  /** Whether success calls the Runbook API to change something (a run, a schedule write). */
  mutates: boolean;
  act(env: UseCaseEnv, who: Actor, runbook: Workflow): Promise<Outcome>;
  expect: Record<CaseName, Outcome>;
}

function outcomeOf(result: { kind: string; reason?: string }): Outcome {
  if (result.kind === 'refused') return result.reason === 'hidden' ? 'hidden' : 'denied';
  // Runs nobody waits on (a workflow step, --now) are refused when approval is needed: nothing is run or requested.
  if (result.kind === 'needs-approval') return 'approval';
  if (result.kind === 'approval-requested') return 'approval';
  if (result.kind === 'failed') throw new Error(`the use case failed: ${JSON.stringify(result)}`);
  return 'ok';
}

let channels = 0;
/** Subscriptions belong to a channel: each case subscribes its own, so cases do not see each other's. */
function inFreshChannel(who: Actor): Actor {
  channels++;
  return { ...who, channelId: `C0SUB${channels}`, destinationChannel: `C0SUB${channels}` };
}

async function scheduleOf(env: UseCaseEnv, runbook: Workflow): Promise<string> {
  const schedule = await env.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: JSON.stringify(PARAMS[runbook.name]),
    schedule: '0 9 * * 1-5',
  });
  return schedule.id;
}

/** A pending request by someone else, to be decided by `who`. */
async function requestBySomeoneElse(env: UseCaseEnv, runbook: Workflow): Promise<string> {
  const requester = actor({ userId: 'U0REQUESTER', teamId: 'T1', groups: [], channelId: 'C01OPS' });
  const approval = await askApproval(
    env.deps,
    requester,
    { runbook, proxyId: 'proxy-dev', params: PARAMS[runbook.name]! },
    null,
  );
  return approval.id;
}

/** A run nobody waits on: the Workflow Builder step, and Run under a --now confirmation (one-line runs, aliases, mentions). */
function runWithoutWaiting(via: RunEntry, how: string): EntryPoint['act'] {
  return async (env, who, runbook) =>
    outcomeOf(
      await runWithoutApproval(
        env.deps,
        who,
        { runbook, proxyId: 'proxy-dev', params: PARAMS[runbook.name]!, via },
        how,
      ),
    );
}

/**
 * `view` as a refusal (show, status, output, executions, health): decided and audited by the use cases,
 * under the action src/runs/ names for that look (`auditAction`, what the trail must say).
 */
function viewRow(look: Look, auditAction: string, ref: (r: Workflow) => { id?: string; name?: string }): EntryPoint {
  return {
    name: `${look} (view)`,
    auditAction,
    mutates: false,
    act: async (env, who, runbook) =>
      (await (await visibilityFor(env.deps, who)).check(ref(runbook), look)).allowed ? 'ok' : 'hidden',
    expect: VIEW_ONLY,
  };
}

const ENTRY_POINTS: EntryPoint[] = [
  {
    name: 'Workflow Builder step "Run a runbook"',
    auditAction: 'run.start',
    via: 'workflow-step',
    mutates: true,
    act: runWithoutWaiting('workflow-step', 'from a workflow'),
    // Needs approval: the step fails; no run and no request (workflows do not wait for approvals).
    expect: SAME_AS_RUN,
  },
  {
    name: 'Run under a --now confirmation (one-line run, alias, mention)',
    auditAction: 'run.start',
    via: 'alias',
    mutates: true,
    act: runWithoutWaiting('alias', 'with --now'),
    expect: SAME_AS_RUN,
  },
  {
    name: 'the --now confirmation (one-line run, alias, mention)',
    auditAction: 'run.open',
    via: 'one-line',
    mutates: false,
    act: async (env, who, runbook) => {
      const result = await checkRunWithoutApproval(env.deps, who, runbook, 'one-line', 'with --now');
      // Needing approval is refused here already (audited too): nobody waits for an approval.
      if (result.kind === 'refused' && result.sentence.includes('needs approval')) return 'approval';
      return result.kind === 'ok' ? 'ok' : outcomeOf(result);
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'alias add',
    auditAction: 'alias.add',
    mutates: false,
    act: async (env, who, runbook) => {
      const result = await addAlias(env.deps, who, {
        name: `a-${who.userId.toLowerCase()}`,
        runbook,
        values: {},
        proxyId: null,
        resultChannel: null,
        // The same person adds the same name in several cases: replacing keeps each case about the gate.
        replace: true,
      });
      const stored = await env.store.aliases.get(who.channelId!, `a-${who.userId.toLowerCase()}`);
      expect(stored !== null).toBe(result.kind === 'ok');
      return result.kind === 'ok'
        ? 'ok'
        : outcomeOf({ kind: 'refused', reason: /may not view|not see/i.test(result.sentence) ? 'hidden' : 'denied' });
    },
    // Saving is a standing run configuration (the schedule rule: view + schedule + run where it is saved);
    // approval and the destination are decided when the alias is used, as for any run.
    expect: { ...SAME_AS_RUN, 'denied in destination only': 'ok', 'needs approval': 'ok' },
  },
  {
    name: 'alias remove',
    auditAction: 'alias.remove',
    mutates: false,
    act: async (env, who, runbook) => {
      const name = `r-${Math.random().toString(36).slice(2, 8)}`;
      await env.store.aliases.add(
        {
          channel: who.channelId!,
          name,
          runbookId: runbook.id,
          runbookName: runbook.name,
          params: '{}',
          proxyId: null,
          resultChannel: null,
          createdBy: 'U0SOMEONE',
          teamId: 'T1',
        },
        Date.now(),
      );
      const result = await removeAlias(env.deps, who, name);
      return result.kind === 'ok'
        ? 'ok'
        : outcomeOf({ kind: 'refused', reason: /may not view|not see/i.test(result.sentence) ? 'hidden' : 'denied' });
    },
    expect: VIEW_ONLY,
  },
  {
    name: 'run from the form',
    auditAction: 'run.start',
    via: 'form',
    mutates: true,
    act: async (env, who, runbook) =>
      outcomeOf(await runFromForm(env.deps, who, { runbook, proxyId: 'proxy-dev', params: PARAMS[runbook.name]! })),
    expect: SAME_AS_RUN,
  },
  {
    name: 'open the run form (run, re-run, Try again)',
    auditAction: 'run.open',
    via: 'rerun',
    mutates: false,
    act: async (env, who, runbook) => {
      const result = await checkRunForm(env.deps, who, runbook, 'rerun');
      return result.kind === 'ok' ? (result.need.required ? 'approval' : 'ok') : outcomeOf(result);
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'Run now',
    auditAction: 'run.start',
    via: 'schedule-run-now',
    mutates: true,
    act: async (env, who, runbook) => {
      const id = await scheduleOf(env, runbook);
      await env.mark();
      return outcomeOf(await runScheduleNow(env.deps, who, id));
    },
    expect: SAME_AS_RUN,
  },
  {
    name: 'schedule create',
    auditAction: 'schedule.create',
    mutates: true,
    act: async (env, who, runbook) =>
      outcomeOf(
        await saveSchedule(env.deps, who, {
          runbook,
          proxyId: 'proxy-dev',
          params: PARAMS[runbook.name]!,
          cron: '30 6 * * *',
          scheduleId: null,
        }),
      ),
    // A schedule has no destination channel: the API runs it.
    expect: { ...SAME_AS_RUN, 'denied in destination only': 'ok' },
  },
  {
    name: 'schedule edit',
    auditAction: 'schedule.update',
    mutates: true,
    act: async (env, who, runbook) => {
      const id = await scheduleOf(env, runbook);
      await env.mark();
      return outcomeOf(
        await saveSchedule(env.deps, who, {
          runbook,
          proxyId: 'proxy-dev',
          params: PARAMS[runbook.name]!,
          cron: '45 7 * * *',
          scheduleId: id,
        }),
      );
    },
    expect: { ...SAME_AS_RUN, 'denied in destination only': 'ok' },
  },
  {
    name: 'schedule delete',
    auditAction: 'schedule.delete',
    mutates: true,
    act: async (env, who, runbook) => {
      const id = await scheduleOf(env, runbook);
      await env.mark();
      return outcomeOf(await deleteSchedule(env.deps, who, id));
    },
    // Deleting starts nothing, so `run` and approval do not apply; `schedule` and `view` do.
    expect: VIEW_ONLY,
  },
  {
    name: 'approve',
    auditAction: 'approval.approve',
    mutates: true,
    act: async (env, who, runbook) => {
      const id = await requestBySomeoneElse(env, runbook);
      await env.mark();
      const result = await approveRequest(env.deps, who, id, async () => null);
      if (result.kind === 'approved' && result.outcome.result.kind !== 'started')
        throw new Error('approved but not run');
      return result.kind === 'approved' ? 'ok' : outcomeOf(result);
    },
    // The approver does not run it (the requester does, checked when asking): `view` and `approve`
    // matter; a runbook the API marks requiresApproval is approved only by the listed approvers.
    expect: { ...VIEW_ONLY, 'needs approval': 'denied' },
  },
  {
    name: 'reject',
    auditAction: 'approval.reject',
    mutates: false,
    act: async (env, who, runbook) => {
      const id = await requestBySomeoneElse(env, runbook);
      await env.mark();
      const result = await rejectRequest(env.deps, who, id, 'not now');
      return result.kind === 'rejected' ? 'ok' : outcomeOf(result);
    },
    expect: { ...VIEW_ONLY, 'needs approval': 'denied' },
  },
  {
    name: 'subscribe',
    auditAction: 'subscription.add',
    mutates: false,
    act: async (env, actedAs, runbook) => {
      const who = inFreshChannel(actedAs);
      const result = await subscribe(env.deps, who, { runbookId: runbook.id }, false);
      const stored = await env.store.subscriptions.listForChannel(who.channelId!);
      expect(stored.some((s) => s.runbookId === runbook.id)).toBe(result.kind === 'subscribed');
      return outcomeOf(result);
    },
    expect: VIEW_ONLY,
  },
  {
    name: 'subscribe all (each run, when it is posted)',
    auditAction: null,
    mutates: false,
    act: async (env, actedAs, runbook) => {
      const who = inFreshChannel(actedAs);
      const result = await subscribe(env.deps, who, { all: true }, false);
      expect(result.kind).toBe('subscribed');
      const { executionIds } = await env.api.workflows.run(runbook.id, {
        proxyId: 'proxy-dev',
        params: PARAMS[runbook.name]!,
      });
      const execution = await env.api.executions.get(executionIds[0]!);
      await env.mark();
      const subscription = (await env.store.subscriptions.listForChannel(who.channelId!)).find(
        (s) => s.runbookId === '*' && s.createdBy === who.userId,
      )!;
      const may = subscriberMayView(
        env.deps,
        async () => who.groups,
        (e) => runbookNamed(env.deps, e.workflowName),
      );
      return (await may(subscription, execution)) ? 'ok' : 'hidden';
    },
    expect: VIEW_ONLY,
  },
  {
    name: 'watch',
    auditAction: 'execution.watch',
    mutates: false,
    act: async (env, who, runbook) => {
      const { executionIds } = await env.api.workflows.run(runbook.id, {
        proxyId: 'proxy-dev',
        params: PARAMS[runbook.name]!,
      });
      await env.mark();
      return outcomeOf(await watchExecution(env.deps, who, executionIds[0]!));
    },
    expect: VIEW_ONLY,
  },
  viewRow('show', 'runbook.show', (r) => ({ id: r.id })),
  viewRow('status', 'execution.status', (r) => ({ id: r.id, name: r.name })),
  viewRow('output', 'execution.output', (r) => ({ name: r.name })),
  viewRow('executions', 'executions.list', (r) => ({ name: r.name })),
  viewRow('health', 'runbook.health', (r) => ({ id: r.id, name: r.name })),
  {
    name: 'read the audit trail',
    auditAction: 'audit.read',
    mutates: false,
    act: async (env, who) => outcomeOf(await readAuditTrail(env.deps, who, 5)),
    expect: AUDIT_ONLY,
  },
];

/** Each refused run's record (action → case → entry point → the record without its time), for the comparison below. */
const refusedRuns = new Map<string, Map<CaseName, Map<RunEntry, Record<string, unknown>>>>();

let env: UseCaseEnv;
beforeAll(async () => {
  env = await startUseCaseEnv(TABLE_POLICY);
});
afterAll(async () => {
  await env.close();
});

describe.each(ENTRY_POINTS)('$name', (entry) => {
  it.each(Object.keys(CASES) as CaseName[])('%s', async (caseName) => {
    const c = CASES[caseName];
    const who = actor({
      userId: c.userId,
      teamId: 'T1',
      groups: [],
      channelId: c.channelId,
      destinationChannel: c.destinationChannel,
    });
    const runbook = await env.runbook(c.runbook);
    await env.mark();
    const before = (await env.audit(1))[0]?.at ?? 0;
    const outcome = await entry.act(env, who, runbook);
    expect(outcome).toBe(entry.expect[caseName]);
    const mutations = await env.mutations();
    if (outcome === 'denied' || outcome === 'hidden' || outcome === 'approval') {
      // Nothing that changes anything reached the Runbook API.
      expect(mutations).toEqual([]);
    } else if (entry.mutates) {
      expect(mutations.length).toBeGreaterThan(0);
    }
    if ((outcome === 'denied' || outcome === 'hidden') && entry.auditAction) {
      const denial = (await env.audit(10)).find(
        (e) => e.userId === who.userId && e.outcome === 'denied' && e.at >= before,
      );
      expect(denial).toMatchObject({
        userId: who.userId,
        teamId: 'T1',
        action: entry.auditAction,
        outcome: 'denied',
        tid: null,
      });
      expect(denial!.detail).toMatch(/You (may not|are not)/);
      // The record names the runbook for the admins; the sentence to a person who may not view it does not.
      if (outcome === 'hidden') expect(denial!.detail).not.toContain(runbook.name);
      if (entry.via) {
        // A run's refusal names its entry point last, as a started run's record does.
        expect(denial!.detail).toMatch(new RegExp(`; via ${entry.via}$`));
        const { at: _at, ...record } = denial!;
        const byCase = refusedRuns.get(entry.auditAction) ?? new Map();
        refusedRuns.set(entry.auditAction, byCase);
        byCase.set(caseName, (byCase.get(caseName) ?? new Map()).set(entry.via, record));
      }
    }
  });
});

describe('a refused run writes the same record on every path', () => {
  const RUN_PATHS = ENTRY_POINTS.filter((e) => e.auditAction === 'run.start').map((e) => e.via);
  it('every path that starts a run is in the table, each with its own entry point', () => {
    expect(RUN_PATHS.sort()).toEqual(['alias', 'form', 'schedule-run-now', 'workflow-step']);
  });

  it.each(['run.start', 'run.open'])('%s: the records differ only in the entry point they name', (action) => {
    const byCase = refusedRuns.get(action);
    const refusals = (['denied by run', 'denied by view', 'denied in destination only'] as CaseName[]).map(
      (caseName) => [caseName, byCase?.get(caseName)] as const,
    );
    for (const [caseName, byEntry] of refusals) {
      const paths = ENTRY_POINTS.filter((e) => e.auditAction === action && e.via).map((e) => e.via!);
      expect({ caseName, entries: [...(byEntry?.keys() ?? [])].sort() }).toEqual({ caseName, entries: paths.sort() });
      const withoutVia = [...byEntry!].map(([via, record]) => ({
        ...record,
        detail: String(record.detail).replace(new RegExp(`; via ${via}$`), ''),
      }));
      for (const record of withoutVia) expect({ caseName, record }).toEqual({ caseName, record: withoutVia[0] });
    }
  });
});

describe('whose view counts for a subscription', () => {
  it('the subscriber’s, in the subscribed channel; unreadable groups post nothing', async () => {
    const runbook = await env.runbook(PLAIN);
    const { executionIds } = await env.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params: PARAMS[PLAIN]! });
    const execution = await env.api.executions.get(executionIds[0]!);
    const subscription = (createdBy: string) => ({
      channel: 'C0SUBX',
      runbookId: '*',
      runbookName: '',
      failuresOnly: false,
      createdBy,
      teamId: 'T1',
      createdAt: 0,
      updatedAt: 0,
    });
    const lookup = (e: typeof execution) => runbookNamed(env.deps, e.workflowName);
    const readable = subscriberMayView(env.deps, async () => [], lookup);
    expect(await readable(subscription(CASES.allowed.userId), execution)).toBe(true);
    expect(await readable(subscription(CASES['denied by view'].userId), execution)).toBe(false);
    const unreadable = subscriberMayView(
      env.deps,
      async () => {
        throw new Error('usergroups.users.list failed');
      },
      lookup,
    );
    expect(await unreadable(subscription(CASES.allowed.userId), execution)).toBe(false);
  });
});
