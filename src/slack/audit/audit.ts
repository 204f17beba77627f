// /runbook audit [n]: the trail, for people the policy lets read it (decided and audited in src/runs/).

import { readAuditTrail } from '../../runs/audit-trail.ts';
import { actorOf } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildAuditList } from './audit-list.ts';

export async function showAudit(ctx: HandlerContext, count: number): Promise<void> {
  const trail = await readAuditTrail(ctx.deps, await actorOf(ctx), count);
  if (trail.kind === 'refused') {
    await ctx.respond(errorMessage(trail.sentence));
    return;
  }
  await ctx.respond(buildAuditList(trail.entries));
}
