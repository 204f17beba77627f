// /runbook: ack at once, parse, hand over to the subcommand's handler, and turn any failure into
// one clear sentence for the person (never a stack trace, never silence).
import type { App } from '@slack/bolt';
import { buildCommandError } from '../blocks/help-message.ts';
import { showAudit } from '../commands/audit.ts';
import { showHelp, showList, showRunbook } from '../commands/browse.ts';
import { browseFromCommand } from '../commands/browse-args.ts';
import { type HandlerContext, respondWith } from '../commands/context.ts';
import { showExecutions, showStatus } from '../commands/executions.ts';
import { openRunModal } from '../commands/run.ts';
import { openScheduleModal, showSchedules } from '../commands/schedules.ts';
import { showSubscriptions, subscribe, unsubscribe, watchExecution } from '../commands/subscriptions.ts';
import type { SlackDeps } from '../deps.ts';
import { COMMAND } from '../ids.ts';
import { type ParsedCommand, parseCommand } from '../parse-command.ts';
import { reportFailure } from './report-failure.ts';

export async function dispatchCommand(ctx: HandlerContext, command: ParsedCommand): Promise<void> {
  switch (command.kind) {
    case 'help':
      return showHelp(ctx, command.topic);
    case 'list':
      return showList(ctx, browseFromCommand(command));
    case 'show':
      return showRunbook(ctx, { text: command.runbook });
    case 'run':
      return openRunModal(ctx, { query: command.runbook });
    case 'schedules':
      return showSchedules(ctx, { query: command.runbook });
    case 'schedule':
      return openScheduleModal(ctx, { query: command.runbook });
    case 'executions':
      return showExecutions(ctx, {
        runbookQuery: command.runbook,
        status: command.status,
        last: command.last,
        tokens: [],
      });
    case 'status':
      return showStatus(ctx, command.executionId);
    case 'audit':
      return showAudit(ctx, command.count);
    case 'subscribe':
      return subscribe(ctx, { runbook: command.runbook, failuresOnly: command.failuresOnly });
    case 'unsubscribe':
      return unsubscribe(ctx, command.runbook);
    case 'subscriptions':
      return showSubscriptions(ctx);
    case 'watch':
      return watchExecution(ctx, command.executionId);
  }
}

export function registerCommands(app: App, deps: SlackDeps): void {
  app.command(COMMAND, async ({ command, ack, respond, client }) => {
    await ack();
    const ctx: HandlerContext = {
      deps,
      client,
      userId: command.user_id,
      teamId: command.team_id ?? null,
      channelId: command.channel_id ?? null,
      triggerId: command.trigger_id ?? null,
      respond: respondWith(respond),
    };
    const parsed = parseCommand(command.text ?? '');
    if (!parsed.ok) {
      await ctx.respond(buildCommandError(parsed));
      return;
    }
    try {
      await dispatchCommand(ctx, parsed.command);
    } catch (err) {
      await reportFailure(ctx, err, `/runbook ${parsed.command.kind}`);
    }
  });
}
