// App Home: recent executions, schedules, the next 24 hours, the failing runbooks and quick buttons, published when the tab is opened and
// when the person presses Refresh (its Run and New schedule buttons belong to run/ and schedules/).

import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Execution, Schedule } from '../../api/schemas.ts';
import type { Actor } from '../../runs/actor.ts';
import { countAccountWork, mayConnect } from '../../runs/api-connection.ts';
import { awaitingApprovalBy } from '../../runs/approvals.ts';
import { forecastFor } from '../../runs/forecast.ts';
import { listFreezes } from '../../runs/freezes.ts';
import { failingRunbooks } from '../../runs/health.ts';
import { type Visibility, visibilityFor } from '../../runs/visibility.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorFor } from '../kit/actor.ts';
import type { SlackDeps } from '../kit/deps.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs, EventArgs } from '../kit/listen.ts';
import { connectFactsOf, settingsSummary } from '../kit/tenancy.ts';
import { buildAppHome, HOME_PERSONAL_ROWS } from './app-home.ts';
import { connectionSection } from './connection-section.ts';

/** Many-workspace mode: the connection's section for this person, or null outside it. */
async function connectionBlocks(deps: SlackDeps, client: WebClient, userId: string): Promise<KnownBlock[] | null> {
  const { tenancy } = deps;
  if (!tenancy) return null;
  // Whether they may manage it is read now (users.info); unreadable: shown without the buttons.
  const facts = await connectFactsOf(tenancy, client, userId).catch(() => null);
  const canManage = facts !== null && mayConnect(userId, facts);
  // Disconnect's confirmation says what is open and would end (unreadable: it says nothing of it).
  const open =
    canManage && tenancy.status ? await countAccountWork(deps, tenancy.installationId).catch(() => null) : null;
  return connectionSection({
    status: tenancy.status,
    withdrawn: tenancy.withdrawn ?? null,
    installerId: facts?.installerId ?? tenancy.installerId,
    canManage,
    open,
    approvalLine: settingsSummary(tenancy.settings, tenancy.operatorApprovalsChannel),
  });
}

/** `where`: the workspace and Grid org the person opened Home from (the request's), for the policy's `teams:`. */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  where: { teamId: string | null; enterpriseId?: string | null | undefined } = { teamId: null },
): Promise<void> {
  const connection = await connectionBlocks(deps, client, userId);
  // Not connected yet: there is nothing else to show.
  if (connection && !deps.tenancy?.status) {
    await client.views.publish({ user_id: userId, view: { type: 'home', blocks: connection } });
    return;
  }
  // Each half degrades on its own: a failing list shows a note instead of blanking the tab.
  const [executions, schedules] = await Promise.all([
    deps.api.executions
      .list({ pageSize: 8, orderBy: 'descending' }, { timeoutMs: deps.interactiveTimeoutMs })
      .then((p) => p.items as Execution[])
      .catch((err: unknown) => err),
    deps.api.schedules
      .list({ pageSize: 8 }, { timeoutMs: deps.interactiveTimeoutMs })
      .then((p) => p.items as Schedule[])
      .catch((err: unknown) => err),
  ]);
  // Only runbooks the policy lets this person view (App Home has no channel: channel rules do not apply).
  // When that cannot be checked (user groups unreadable), both halves say why instead of listing anything.
  let visible: Visibility;
  const aliases = await deps.access.store.aliases.listByCreator(userId, 15, installationKey()).catch(() => []);
  let actor: Actor;
  try {
    const { teamId, enterpriseId = null } = where;
    actor = await actorFor(deps, client, { userId, teamId, enterpriseId, channelId: null }, { email: true });
    visible = await visibilityFor(deps, actor);
  } catch (err) {
    await client.views.publish({
      user_id: userId,
      view: buildAppHome({
        executions: err,
        schedules: err,
        now: deps.now(),
        awaitingApproval: err,
        myRuns: err,
        ...(connection ? { connection } : {}),
      }),
    });
    return;
  }
  const [awaitingApproval, myRuns, pauses, forecast, failing] = await Promise.all([
    awaitingApprovalBy(deps, actor).catch((err: unknown) => err),
    yourRecentRuns(deps, actor.email).catch((err: unknown) => err),
    deps.access.store.schedulePauses.list(1_000, installationKey()).catch(() => []),
    forecastFor(deps, visible, '24h').catch((err: unknown) => err),
    // One bounded scan shared by everyone for 5 minutes (src/runs/health.ts), filtered by this person's view.
    failingRunbooks(deps, (name) => visible.ref({ name })).catch((err: unknown) => err),
  ]);
  const people = await deps.access.identity.peopleByEmail(
    client,
    Array.isArray(executions) ? (executions as Execution[]).map((e) => e.executor) : [],
  );
  await client.views.publish({
    user_id: userId,
    view: buildAppHome({
      people,
      executions: Array.isArray(executions)
        ? executions.filter((e) => visible.ref({ name: e.workflowName }))
        : executions,
      schedules: Array.isArray(schedules)
        ? schedules.filter((s) => visible.ref({ id: s.runbookId, name: s.runbookName }))
        : schedules,
      aliases: aliases.filter((a) => visible.ref({ id: a.runbookId, name: a.runbookName })),
      pauses: new Map(pauses.map((p) => [p.scheduleId, p])),
      now: deps.now(),
      awaitingApproval,
      forecast,
      failing,
      freezes: listFreezes(deps, actor),
      myRuns: Array.isArray(myRuns) ? myRuns.filter((e: Execution) => visible.ref({ name: e.workflowName })) : myRuns,
      ...(connection ? { connection } : {}),
    }),
  });
}

/** Runs this person started (the API records the email sent as userEmail as the executor), newest first. */
async function yourRecentRuns(deps: SlackDeps, email: string | null): Promise<Execution[]> {
  if (!email) return [];
  const page = await deps.api.executions.list(
    { pageSize: 100, orderBy: 'descending' },
    { timeoutMs: deps.interactiveTimeoutMs },
  );
  const mine = email.toLowerCase();
  return page.items.filter((e) => e.executor.toLowerCase() === mine).slice(0, HOME_PERSONAL_ROWS);
}

export async function appHomeOpened({ event }: EventArgs<'app_home_opened'>, ctx: HandlerContext): Promise<void> {
  if (event.tab && event.tab !== 'home') return;
  try {
    await publishHome(ctx.deps, ctx.client, event.user, ctx);
  } catch (err) {
    ctx.deps.logger.warn({ err }, 'could not publish App Home');
  }
}

export async function homeRefreshClicked({ ack, body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  await publishHome(ctx.deps, ctx.client, body.user.id, ctx).catch((err: unknown) =>
    ctx.deps.logger.warn({ err }, 'App Home refresh failed'),
  );
}
