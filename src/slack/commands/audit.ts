// /runbook audit [n]: for people the policy lets read the trail.

import { subjectOf } from '../../runs/gate.ts';
import { buildAuditList } from '../blocks/audit-list.ts';
import { errorMessage } from '../blocks/common.ts';
import { actorOf } from './access.ts';
import type { HandlerContext } from './context.ts';

export async function showAudit(ctx: HandlerContext, count: number): Promise<void> {
  const { access } = ctx.deps;
  const decision = access.policy.decide('audit', subjectOf(await actorOf(ctx), ctx.channelId), null);
  if (!decision.allowed) {
    await ctx.respond(errorMessage(decision.message));
    return;
  }
  await ctx.respond(buildAuditList(await access.audit.recent(count)));
}
