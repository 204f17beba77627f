// Typeahead (options load): the runbook picker searches the cached catalog, and enum fields with
// more than 100 values search their own schema. Answers come from memory, well inside Slack's
// 3-second limit, however large the catalog.
import type { BlockSuggestion } from '@slack/bolt';
import { enumOptions } from '../../forms/enum-options.ts';
import { findField, parseInputSchema } from '../../forms/input-schema.ts';
import { visibilityFor } from '../../runs/visibility.ts';
import { actorFor } from '../kit/actor.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { OptionsArgs } from '../kit/listen.ts';
import { decodeRunMetadata, runbookOption } from '../kit/run-modal.ts';

function runbookIdFromMetadata(raw: string | undefined): string | null {
  try {
    const v = JSON.parse(raw ?? '{}') as { r?: unknown };
    return typeof v.r === 'string' ? v.r : null;
  } catch {
    return null;
  }
}

// Only runbooks the person may view where they are; when their access cannot be checked (user groups
// unreadable), nothing is offered.
export async function runbookSuggested(
  { ack, body, payload, client }: OptionsArgs,
  ctx: HandlerContext,
): Promise<void> {
  const { deps } = ctx;
  try {
    const suggestion = body as BlockSuggestion;
    const where = decodeRunMetadata(suggestion.view?.private_metadata).c ?? suggestion.channel?.id ?? null;
    const actor = await actorFor(deps, client, {
      userId: suggestion.user.id,
      teamId: suggestion.team?.id ?? null,
      channelId: where,
    });
    const found = await (await visibilityFor(deps, actor)).search(payload.value ?? '', 100);
    await ack({ options: found.map(runbookOption) });
  } catch (err) {
    deps.logger.warn({ err }, 'runbook typeahead failed');
    await ack({ options: [] });
  }
}

/** Enum fields rendered as external selects: find the field from the view's runbook. */
export async function fieldSuggested({ ack, body }: OptionsArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const suggestion = body as BlockSuggestion;
  try {
    const runbookId = runbookIdFromMetadata(suggestion.view?.private_metadata);
    const runbook = runbookId ? await deps.catalog.get(runbookId) : null;
    const field = runbook ? findField(parseInputSchema(runbook.inputSchema), suggestion.block_id) : undefined;
    await ack({ options: field ? enumOptions(field, suggestion.value ?? '') : [] });
  } catch (err) {
    deps.logger.warn({ err }, 'field typeahead failed');
    await ack({ options: [] });
  }
}
