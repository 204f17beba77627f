// `/runbook freezes` (the policy's windows, on now or next) and `/runbook freezes break <runbook> --reason
// "…"` (break-glass: one run inside the freeze), onto src/runs/freezes.ts.
import { breakFreeze, listFreezes } from '../../runs/freezes.ts';
import { actorOf } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildFreezeList, buildPassGranted } from './freeze-list.ts';

export async function showFreezes(ctx: HandlerContext): Promise<void> {
  await ctx.respond(
    buildFreezeList(listFreezes(ctx.deps, { teamId: ctx.teamId, enterpriseId: ctx.enterpriseId ?? null })),
  );
}

export async function breakFreezeCommand(ctx: HandlerContext, runbook: string, reason: string): Promise<void> {
  const result = await breakFreeze(ctx.deps, await actorOf(ctx), runbook, reason);
  if (result.kind === 'refused') {
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  await ctx.respond(
    buildPassGranted({ runbookName: result.runbook.name, freeze: result.freeze.name, expiresAt: result.expiresAt }),
  );
}
