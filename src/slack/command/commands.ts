// /runbook: ack at once, parse, hand over to the subcommand's handler, and turn any failure into
// one clear sentence for the person (never a stack trace, never silence).

import { installationKey } from '../../tenants/tenant-scope.ts';
import { showAudit } from '../audit/audit.ts';
import { showHelp, showList, showRunbook } from '../browse/browse.ts';
import { browseFromCommand } from '../browse/browse-args.ts';
import { showExecutions, showStatus } from '../executions/executions.ts';
import { breakFreezeCommand, showFreezes } from '../freezes/freezes.ts';
import { showHealth } from '../health/health.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildCommandError } from '../kit/help-message.ts';
import type { CommandArgs } from '../kit/listen.ts';
import { type ParsedCommand, parseCommand } from '../kit/parse-command.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { openRunModal } from '../kit/run-start.ts';
import {
  addAliasCommand,
  channelDefaultsCommand,
  listAliasesCommand,
  removeAliasCommand,
  useAlias,
} from '../run/aliases.ts';
import { startLineRun } from '../run/one-line.ts';
import { showForecast } from '../schedules/forecast.ts';
import { openScheduleModal, showSchedules } from '../schedules/schedules.ts';
import {
  showSubscriptions,
  subscribeHere,
  unsubscribeHere,
  watchExecutionHere,
} from '../subscriptions/subscriptions.ts';
import { buildOpenFormPrompt, openFormValue } from './mention-prompt.ts';
import { typedSecretNames, withoutValues } from './typed-secrets.ts';

export async function dispatchCommand(ctx: HandlerContext, command: ParsedCommand): Promise<void> {
  switch (command.kind) {
    case 'help':
      return showHelp(ctx, command.topic);
    case 'list':
      return showList(ctx, browseFromCommand(command));
    case 'show':
      return showRunbook(ctx, { text: command.runbook });
    case 'health':
      return showHealth(ctx, { text: command.runbook, here: command.here });
    case 'run':
      if (command.values || command.now) {
        return startLineRun(ctx, { query: command.runbook, values: command.values ?? {}, now: command.now ?? false });
      }
      return openRunModal(ctx, { query: command.runbook });
    case 'alias-add':
      return addAliasCommand(ctx, command);
    case 'alias-list':
      return listAliasesCommand(ctx);
    case 'alias-remove':
      return removeAliasCommand(ctx, command.alias);
    case 'defaults':
      return channelDefaultsCommand(ctx, command);
    case 'schedules':
      return command.next
        ? showForecast(ctx, command.next, command.runbook)
        : showSchedules(ctx, { query: command.runbook });
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
      await subscribeHere(ctx, { runbook: command.runbook, failuresOnly: command.failuresOnly });
      return;
    case 'unsubscribe':
      return unsubscribeHere(ctx, command.runbook);
    case 'subscriptions':
      return showSubscriptions(ctx);
    case 'watch':
      return watchExecutionHere(ctx, command.executionId);
    case 'freezes':
      return showFreezes(ctx);
    case 'freeze-break':
      return breakFreezeCommand(ctx, command.runbook, command.reason);
  }
}

/** Commands that open a form, which needs a trigger_id (a mention has none). */
function needsForm(command: ParsedCommand): boolean {
  return (command.kind === 'run' && !command.now) || command.kind === 'schedule';
}

/**
 * One command line, from /runbook or a mention: parse, answer errors with help, and hand over to the
 * subcommand's handler. Without a trigger_id, a command that opens a form answers with a button that does.
 */
export async function handleCommandText(ctx: HandlerContext, text: string): Promise<void> {
  const parsed = parseCommand(text);
  if (!parsed.ok) {
    try {
      // An unknown word may be one of the channel's aliases.
      const alias = parsed.alias;
      if (alias && (ctx.triggerId || alias.now)) {
        if (await useAlias(ctx, alias)) return;
      } else if (alias && ctx.channelId) {
        // A mention has no trigger_id: an alias that opens a form answers with a button that does.
        const saved = await ctx.deps.access.store.aliases.get(ctx.channelId, alias.name, installationKey());
        if (saved && (await promptForForm(ctx, text, { id: saved.runbookId }, alias.values))) return;
      }
    } catch (err) {
      await reportFailure(ctx, err, `/runbook ${parsed.alias?.name ?? ''}`);
      return;
    }
    await ctx.respond(buildCommandError(parsed));
    return;
  }
  try {
    if (!ctx.triggerId && needsForm(parsed.command)) {
      const { command } = parsed;
      const typed = command.kind === 'run' ? (command.values ?? {}) : {};
      if (!(await promptForForm(ctx, text, { text: 'runbook' in command ? command.runbook : null }, typed))) {
        await ctx.respond(errorMessage('That is too long for a mention; type it as /runbook instead.'));
      }
      return;
    }
    await dispatchCommand(ctx, parsed.command);
  } catch (err) {
    await reportFailure(ctx, err, `/runbook ${parsed.command.kind}`);
  }
}

/** `/runbook …`: ack at once, then the line. */
export async function runbookCommand({ command, ack }: CommandArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  await handleCommandText(ctx, command.text ?? '');
}

/**
 * The "Open the form" answer to a line without a trigger_id; false when the line is too long for its button.
 * Secret values typed on it are left out of what it shows and carries (typed-secrets.ts), and named.
 */
async function promptForForm(
  ctx: HandlerContext,
  text: string,
  runbook: { id?: string; text?: string | null },
  typed: Readonly<Record<string, string>>,
): Promise<boolean> {
  const secrets = await typedSecretNames(ctx, runbook, typed);
  const line = withoutValues(text, secrets);
  const value = openFormValue(line, ctx.threadTs ?? null);
  if (!value) return false;
  await ctx.respond(buildOpenFormPrompt(line, value, secrets));
  return true;
}
