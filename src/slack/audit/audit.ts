// /runbook audit [n]: for people the policy lets read the trail.

import { subjectOf } from '../../runs/gate.ts';
import { actorOf } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildAuditList } from './audit-list.ts';

export async function showAudit(ctx: HandlerContext, count: number): Promise<void> {
  const { access } = ctx.deps;
  const decision = access.policy.decide('audit', subjectOf(await actorOf(ctx), ctx.channelId), null);
  if (!decision.allowed) {
    await ctx.respond(errorMessage(decision.message));
    return;
  }
  await ctx.respond(buildAuditList(await access.audit.recent(count)));
}
