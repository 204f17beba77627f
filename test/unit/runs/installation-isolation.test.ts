// Isolation by installation (many workspaces), at the use cases: every surface scoped so far, run in the
// same installation and in another one, must show or act on the record only in its own. Records: approval
// requests (App Home's list, finding one by id, approving, rejecting), the audit trail, saved runs
// (aliases), channel run defaults, schedule owners (a schedule made in Slack), run drafts ("Try again") and
// paused schedules (two installations' APIs may hold the same schedule id: here both reach one emulator),
// channel subscriptions (a Slack Connect channel shared by both workspaces), watches (by execution id) and run
// intents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { actor } from '../../../src/runs/actor.ts';
import { addAlias, aliasFor, changeChannelDefaults, listAliases, removeAlias } from '../../../src/runs/aliases.ts';
import { approveRequest, awaitingApprovalBy, findApproval, rejectRequest } from '../../../src/runs/approvals.ts';
import { readAuditTrail } from '../../../src/runs/audit-trail.ts';
import { askApproval } from '../../../src/runs/run.ts';
import { chooseRun } from '../../../src/runs/run-choice.ts';
import { reconcileIntents } from '../../../src/runs/run-intents.ts';
import { pauseSchedule, reconcilePauses, resumeSchedule } from '../../../src/runs/schedule-pauses.ts';
import { saveSchedule } from '../../../src/runs/schedules.ts';
import { listSubscriptions, subscribe, unsubscribe, watchExecution } from '../../../src/runs/subscriptions.ts';
import { RunDrafts } from '../../../src/slack/kit/run-drafts.ts';
import { inInstallation, installationKey } from '../../../src/tenants/tenant-scope.ts';
import { PARAMS, PLAIN, TABLE_POLICY } from '../../support/authorization-cases.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

let env: UseCaseEnv;
beforeAll(async () => {
  env = await startUseCaseEnv(TABLE_POLICY);
});
afterAll(() => env.close());

const OWN = 'T0OWN';
const OTHER = 'T0OTHER';
const requester = actor({ userId: 'U0REQUESTER', teamId: OWN, groups: [], channelId: 'C01OPS' });
const approver = (teamId: string) => actor({ userId: 'U02BOB', teamId, groups: [], channelId: 'C01OPS' });
const auditor = (teamId: string) => actor({ userId: 'U01ALICE', teamId, groups: [], channelId: 'C01OPS' });

/** A request made in OWN's scope, as a request of that workspace is. */
async function requestInOwn(): Promise<string> {
  const runbook = await env.runbook(PLAIN);
  return inInstallation(OWN, async () => {
    const approval = await askApproval(
      env.deps,
      requester,
      { runbook, proxyId: 'proxy-dev', params: PARAMS[PLAIN]! },
      null,
    );
    return approval.id;
  });
}

let aliasCount = 0;
let intentCount = 0;
/** An alias saved in OWN's scope, in a channel that (Slack Connect) both workspaces share. */
async function aliasInOwn(): Promise<string> {
  const runbook = await env.runbook(PLAIN);
  const name = `restart-${++aliasCount}`;
  const added = await inInstallation(OWN, () =>
    addAlias(env.deps, auditor(OWN), { name, runbook, values: {}, proxyId: null, resultChannel: null }),
  );
  if (added.kind !== 'ok') throw new Error(`alias refused: ${added.sentence}`);
  return name;
}

let defaultsChannel = 0;
/** Run defaults set in OWN's scope, in a channel both workspaces share. */
async function defaultsInOwn(): Promise<string> {
  const channelId = `C0SHARED${++defaultsChannel}`;
  const set = await inInstallation(OWN, () =>
    changeChannelDefaults(env.deps, { ...auditor(OWN), channelId }, { proxyId: 'proxy-dev' }),
  );
  if (set.kind !== 'ok') throw new Error(`defaults refused: ${set.sentence}`);
  return channelId;
}

let scheduleId: string | null = null;
/** A schedule made in Slack in OWN's scope (once: its owner is what is looked up). */
async function scheduleInOwn(): Promise<string> {
  if (scheduleId) return scheduleId;
  scheduleId = await newScheduleInOwn();
  return scheduleId;
}

async function newScheduleInOwn(): Promise<string> {
  const runbook = await env.runbook(PLAIN);
  const saved = await inInstallation(OWN, () =>
    saveSchedule(env.deps, auditor(OWN), {
      runbook,
      proxyId: 'proxy-dev',
      cron: '0 5 * * *',
      params: PARAMS[PLAIN]!,
      scheduleId: null,
    }),
  );
  if (saved.kind !== 'saved') throw new Error(`schedule not saved: ${saved.kind}`);
  return saved.schedule.id;
}

let pausedId: string | null = null;
/** A schedule paused in OWN's scope (once). */
async function pausedInOwn(): Promise<string> {
  if (pausedId) return pausedId;
  const id = await newScheduleInOwn();
  const paused = await inInstallation(OWN, () => pauseSchedule(env.deps, auditor(OWN), id));
  if (paused.kind !== 'paused') throw new Error(`schedule not paused: ${paused.kind}`);
  pausedId = id;
  return id;
}

let subscribedChannel = 0;
/** A subscription made in OWN's scope, in a channel both workspaces share. */
async function subscriptionInOwn(): Promise<string> {
  const runbook = await env.runbook(PLAIN);
  const channelId = `C0SUBS${++subscribedChannel}`;
  const made = await inInstallation(OWN, () =>
    subscribe(env.deps, { ...auditor(OWN), channelId }, { runbookId: runbook.id }, false),
  );
  if (made.kind !== 'subscribed') throw new Error(`subscription refused: ${made.kind}`);
  return channelId;
}

type Surface = { name: string; sees: (installation: string) => Promise<boolean> };

const SURFACES: Surface[] = [
  {
    name: 'App Home: waiting for your approval',
    sees: async (installation) => {
      const id = await requestInOwn();
      const listed = await inInstallation(installation, () => awaitingApprovalBy(env.deps, approver(installation)));
      return listed.some((a) => a.approval.id === id);
    },
  },
  {
    name: 'an approval request by id',
    sees: async (installation) => {
      const id = await requestInOwn();
      return (await inInstallation(installation, () => findApproval(env.deps, id))) !== null;
    },
  },
  {
    name: 'Approve',
    sees: async (installation) => {
      const id = await requestInOwn();
      const result = await inInstallation(installation, () =>
        approveRequest(env.deps, approver(installation), id, async () => null),
      );
      const stored = await env.store.approvals.get(id);
      if (result.kind === 'refused') expect(stored?.state).toBe('pending');
      return result.kind === 'approved';
    },
  },
  {
    name: 'Reject',
    sees: async (installation) => {
      const id = await requestInOwn();
      const result = await inInstallation(installation, () =>
        rejectRequest(env.deps, approver(installation), id, 'not now'),
      );
      return result.kind === 'rejected';
    },
  },
  {
    name: '/runbook audit',
    sees: async (installation) => {
      const id = await requestInOwn();
      const trail = await inInstallation(installation, () => readAuditTrail(env.deps, auditor(installation), 200));
      if (trail.kind !== 'ok') throw new Error('audit refused');
      return trail.entries.some((e) => (e.detail ?? '').includes(id));
    },
  },
  {
    name: 'an alias used in a shared channel (/runbook <alias>)',
    sees: async (installation) => {
      const name = await aliasInOwn();
      return (await inInstallation(installation, () => aliasFor(env.deps, auditor(installation), name))) !== null;
    },
  },
  {
    name: '/runbook alias list',
    sees: async (installation) => {
      const name = await aliasInOwn();
      const listed = await inInstallation(installation, () => listAliases(env.deps, auditor(installation)));
      return listed.some((a) => a.name === name);
    },
  },
  {
    name: '/runbook alias remove',
    sees: async (installation) => {
      const name = await aliasInOwn();
      const removed = await inInstallation(installation, () => removeAlias(env.deps, auditor(installation), name));
      if (removed.kind === 'refused')
        expect(await inInstallation(OWN, () => aliasFor(env.deps, auditor(OWN), name))).not.toBeNull();
      return removed.kind === 'ok';
    },
  },
  {
    name: 'channel run defaults applied to a run form',
    sees: async (installation) => {
      const channelId = await defaultsInOwn();
      const choice = await inInstallation(installation, () => chooseRun(env.deps, null, channelId, {}));
      return choice.fromDefaults.proxyId === 'proxy-dev';
    },
  },
  {
    name: '/runbook defaults clear',
    sees: async (installation) => {
      const channelId = await defaultsInOwn();
      await inInstallation(installation, () =>
        changeChannelDefaults(env.deps, { ...auditor(installation), channelId }, 'clear'),
      );
      const own = await inInstallation(OWN, () => chooseRun(env.deps, null, channelId, {}));
      return own.fromDefaults.proxyId === null;
    },
  },
  {
    name: 'the owner of a schedule made in Slack (by schedule id)',
    sees: async (installation) => {
      const scheduleId = await scheduleInOwn();
      const owner = await inInstallation(installation, () =>
        env.store.scheduleOwners.get(scheduleId, installationKey()),
      );
      return owner !== null;
    },
  },
  {
    name: 'a paused schedule by id (the edit check, Pause’s take-over)',
    sees: async (installation) => {
      const id = await pausedInOwn();
      return (await inInstallation(installation, () => env.store.schedulePauses.get(id, installationKey()))) !== null;
    },
  },
  {
    name: 'the paused schedules listed (the schedule list, App Home, the forecast, a freeze’s pass)',
    sees: async (installation) => {
      const id = await pausedInOwn();
      const listed = await inInstallation(installation, () => env.store.schedulePauses.list(100, installationKey()));
      return listed.some((p) => p.scheduleId === id);
    },
  },
  {
    name: '/runbook subscriptions (a shared channel’s list)',
    sees: async (installation) => {
      const channelId = await subscriptionInOwn();
      const listed = await inInstallation(installation, () =>
        listSubscriptions(env.deps, { ...auditor(installation), channelId }),
      );
      if (!Array.isArray(listed)) throw new Error('list refused');
      return listed.length === 1;
    },
  },
  {
    name: '/runbook unsubscribe',
    sees: async (installation) => {
      const channelId = await subscriptionInOwn();
      const runbook = await env.runbook(PLAIN);
      const removed = await inInstallation(installation, () =>
        unsubscribe(env.deps, { ...auditor(installation), channelId }, runbook.id),
      );
      const own = await inInstallation(OWN, () => listSubscriptions(env.deps, { ...auditor(OWN), channelId }));
      if (removed.kind !== 'removed') expect(Array.isArray(own) && own.length).toBe(1);
      return removed.kind === 'removed' && removed.removed;
    },
  },
  {
    name: '/runbook watch <execution id> (an id another tenant’s API may hand out too)',
    sees: async (installation) => {
      // OWN watches an execution; here both installations reach one emulator, as two APIs handing out one id.
      const record = [...env.emulator.state.workflows.byId.values()].find((r) => r.workflow.name === PLAIN)!;
      const { id } = env.emulator.state.startExecutionAt(record, { proxyId: 'proxy-dev' }, {}, Date.now(), {
        executor: 'ops@example.com',
        approver: '',
      });
      await env.store.watches.insert(
        {
          installationId: OWN,
          executionId: id,
          runbookId: record.workflow.id,
          runbookName: PLAIN,
          channel: 'C01OPS',
          teamId: OWN,
          proxyId: 'proxy-dev',
          inputsSummary: '{}',
          origin: 'slack',
        },
        Date.now(),
      );
      const result = await inInstallation(installation, () => watchExecution(env.deps, auditor(installation), id));
      return result.kind === 'already';
    },
  },
  {
    name: 'an unsettled run intent (a restart reconciles it)',
    sees: async (installation) => {
      const id = `intent-${++intentCount}`;
      await inInstallation(OWN, () =>
        env.store.intents.record(
          {
            id,
            userId: 'U01ALICE',
            userEmail: null,
            teamId: OWN,
            runbookId: 'rb-none',
            runbookName: 'Nothing Like It',
            proxyId: 'proxy-dev',
            paramsHash: 'h',
            channel: 'C01OPS',
            inputsSummary: '{}',
            via: 'form',
            installationId: installationKey(),
          },
          Date.now() - 1_000,
        ),
      );
      const report = await inInstallation(installation, () => reconcileIntents(env.deps, { graceMs: 0 }));
      return [...report.pending, ...report.lost, ...report.reconciled.map((r) => r.intentId)].includes(id);
    },
  },
  {
    name: 'a run draft by id ("Try again")',
    sees: async (installation) => {
      const drafts = new RunDrafts({ store: env.store.runDrafts });
      const spec = parseInputSchema(JSON.stringify({ type: 'object', properties: { region: { type: 'string' } } }));
      const id = await inInstallation(OWN, () =>
        drafts.save({ runbookId: 'rb', proxyId: null, channel: 'C01OPS', params: { region: 'eu' } }, spec),
      );
      return (await inInstallation(installation, () => drafts.take(id))) !== null;
    },
  },
];

describe('installation isolation', () => {
  for (const surface of SURFACES) {
    it(`${surface.name}: the record of one installation is seen in it, and not in another`, async () => {
      expect(await surface.sees(OWN)).toBe(true);
      expect(await surface.sees(OTHER)).toBe(false);
    });
  }

  it('a Slack Connect channel: each installation saves its own alias of one name, neither replaces the other', async () => {
    const name = await aliasInOwn();
    const runbook = await env.runbook(PLAIN);
    const other = await inInstallation(OTHER, () =>
      addAlias(env.deps, auditor(OTHER), {
        name,
        runbook,
        values: { namespace: 'other' },
        proxyId: null,
        resultChannel: null,
      }),
    );
    expect(other).toEqual({ kind: 'ok', value: 'added' });
    const own = await inInstallation(OWN, () => aliasFor(env.deps, auditor(OWN), name));
    const theirs = await inInstallation(OTHER, () => aliasFor(env.deps, auditor(OTHER), name));
    expect(own?.params).toBe('{}');
    expect(theirs?.params).toBe('{"namespace":"other"}');
    // Outside any installation (single-workspace mode) neither is there.
    expect(await aliasFor(env.deps, auditor(OWN), name)).toBeNull();
  });

  it('a Slack Connect channel: each installation subscribes the same runbook, neither updates the other’s', async () => {
    const channelId = await subscriptionInOwn();
    const runbook = await env.runbook(PLAIN);
    const theirs = await inInstallation(OTHER, () =>
      subscribe(env.deps, { ...auditor(OTHER), channelId }, { runbookId: runbook.id }, true),
    );
    expect(theirs).toMatchObject({ kind: 'subscribed', added: 'added', failuresOnly: true });
    const own = await inInstallation(OWN, () => listSubscriptions(env.deps, { ...auditor(OWN), channelId }));
    const other = await inInstallation(OTHER, () => listSubscriptions(env.deps, { ...auditor(OTHER), channelId }));
    expect(Array.isArray(own) && own.map((s) => [s.teamId, s.failuresOnly])).toEqual([[OWN, false]]);
    expect(Array.isArray(other) && other.map((s) => [s.teamId, s.failuresOnly])).toEqual([[OTHER, true]]);
    // Outside any installation (single-workspace mode) neither is there.
    expect(await listSubscriptions(env.deps, { ...auditor(OWN), channelId })).toEqual([]);
  });

  it('a schedule paused in one installation is not paused, listed nor resumable in another with the same id', async () => {
    const id = await newScheduleInOwn();
    expect((await inInstallation(OWN, () => pauseSchedule(env.deps, auditor(OWN), id))).kind).toBe('paused');
    const resumedElsewhere = await inInstallation(OTHER, () => resumeSchedule(env.deps, auditor(OTHER), id));
    expect(resumedElsewhere).toMatchObject({ kind: 'refused', reason: 'duplicate' });
    expect(await inInstallation(OTHER, () => env.store.schedulePauses.list(100, installationKey()))).toEqual([]);
    // Single-workspace scope ('') does not see it either.
    expect(await env.store.schedulePauses.get(id)).toBeNull();
    // Reconciliation in the other installation's scope leaves it alone, even in flight.
    await env.store.schedulePauses.move(id, 'paused', 'resuming', 0, OWN);
    const report = await inInstallation(OTHER, () => reconcilePauses(env.deps, { graceMs: 0 }));
    expect(report.resumed).not.toContain(id);
    expect((await env.store.schedulePauses.get(id, OWN))?.state).toBe('resuming');
    await env.store.schedulePauses.move(id, 'resuming', 'paused', 0, OWN);
    // Its own installation still resumes it.
    const resumed = await inInstallation(OWN, () => resumeSchedule(env.deps, auditor(OWN), id));
    expect(resumed.kind).toBe('resumed');
    expect(await env.store.schedulePauses.get(id, OWN)).toBeNull();
  });

  it('single-workspace mode (no installation in scope) is unchanged: everything is seen', async () => {
    const id = await requestInOwn();
    expect(await findApproval(env.deps, id)).not.toBeNull();
    const trail = await readAuditTrail(env.deps, auditor(OWN), 200);
    expect(trail.kind === 'ok' && trail.entries.some((e) => (e.detail ?? '').includes(id))).toBe(true);
  });
});
