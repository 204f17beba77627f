// views.* methods of the fake Web API: modal stacks opened with short-lived trigger ids, updates
// guarded by hash, Home tabs published per user.
import {
  fail,
  invalidBlocks,
  jsonArg,
  type MethodArgs,
  type MethodContext,
  type MethodHandler,
  type SlackBody,
  str,
} from './fake-slack-context.ts';
import { mintSlackId, mintViewHash } from './fake-slack-ids.ts';
import type { FakeSlackState, FakeView } from './fake-slack-state.ts';

/** Slack does not publish the byte limit behind view_too_large; the fake uses 250 kB of JSON. */
export const MAX_VIEW_JSON_LENGTH = 250_000;
/** "After a modal is opened, the app is limited to pushing 2 additional views." */
export const MAX_MODAL_STACK = 3;

/** A stored view as Slack returns it (views.* answers, view_submission payloads). */
export function toViewOutput(state: FakeSlackState, fv: FakeView): Record<string, unknown> {
  const v = fv.view;
  return {
    id: fv.id,
    team_id: state.teamId,
    type: fv.type,
    blocks: v.blocks ?? [],
    private_metadata: v.private_metadata ?? '',
    callback_id: v.callback_id ?? '',
    state: fv.state,
    hash: fv.hash,
    title: v.title ?? { type: 'plain_text', text: 'View Title', emoji: true },
    clear_on_close: v.clear_on_close ?? false,
    notify_on_close: v.notify_on_close ?? false,
    close: v.close ?? null,
    submit: v.submit ?? null,
    previous_view_id: fv.previous_view_id,
    root_view_id: fv.root_view_id,
    app_id: state.appId,
    external_id: fv.external_id,
    ...(fv.installedTeamId === null ? {} : { app_installed_team_id: fv.installedTeamId ?? state.teamId }),
    bot_id: state.botId,
  };
}

function readView(ctx: MethodContext, args: MethodArgs, type: 'modal' | 'home'): Record<string, unknown> | SlackBody {
  const parsed = jsonArg(args, 'view');
  if (!parsed || 'error' in parsed) return fail('invalid_arguments');
  const view = parsed.value;
  if (typeof view !== 'object' || view === null || Array.isArray(view)) return fail('invalid_arguments');
  const record = view as Record<string, unknown>;
  if (record.type !== type) {
    return invalidBlocks([`must be '${type}' [json-pointer:/view/type]`], 'invalid_arguments');
  }
  if (JSON.stringify(record).length > MAX_VIEW_JSON_LENGTH) return fail('view_too_large');
  const errors = ctx.checkViewBlocks(record);
  if (errors.length > 0) return invalidBlocks(errors, 'invalid_arguments');
  return record;
}

function isBody(value: unknown): value is SlackBody {
  return typeof value === 'object' && value !== null && 'ok' in value && typeof value.ok === 'boolean';
}

function externalIdTaken(state: FakeSlackState, externalId: string, exceptId?: string): boolean {
  return externalId !== '' && Object.values(state.views).some((v) => v.external_id === externalId && v.id !== exceptId);
}

function createView(
  ctx: MethodContext,
  type: 'modal' | 'home',
  user: string | undefined,
  view: Record<string, unknown>,
  rootId: string | null,
  previousId: string | null,
): FakeView {
  const id = mintSlackId('V');
  const fv: FakeView = {
    id,
    type,
    user_id: user,
    view,
    state: { values: {} },
    hash: mintViewHash(ctx.now()),
    root_view_id: rootId ?? id,
    previous_view_id: previousId,
    external_id: typeof view.external_id === 'string' ? view.external_id : '',
    closed: false,
  };
  ctx.state.views[id] = fv;
  return fv;
}

/** Keep what the user typed into inputs that still exist (same block_id), as Slack does. */
function keepStateOfSurvivingBlocks(fv: FakeView, view: Record<string, unknown>): void {
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Array<{ block_id?: unknown }>) : [];
  const ids = new Set(blocks.map((b) => b.block_id).filter((id): id is string => typeof id === 'string'));
  for (const blockId of Object.keys(fv.state.values)) {
    if (!ids.has(blockId)) delete fv.state.values[blockId];
  }
}

/** Mark every view of a user's modal stack closed (the sandbox calls this when a modal closes). */
export function closeModalStack(state: FakeSlackState, user: string): void {
  for (const id of state.modalStacks[user] ?? []) {
    const view = state.views[id];
    if (view) view.closed = true;
  }
  delete state.modalStacks[user];
}

const open: MethodHandler = (ctx, args) => {
  const view = readView(ctx, args, 'modal');
  if (isBody(view)) return view;
  const trigger = str(args, 'trigger_id') ?? str(args, 'interactivity_pointer');
  if (!trigger) return fail('invalid_arguments');
  const externalId = typeof view.external_id === 'string' ? view.external_id : '';
  if (externalIdTaken(ctx.state, externalId)) return fail('duplicate_external_id');
  const grant = ctx.consumeTrigger(trigger);
  if ('error' in grant) return fail(grant.error);
  const fv = createView(ctx, 'modal', grant.user, view, null, null);
  if (grant.user) {
    closeModalStack(ctx.state, grant.user);
    ctx.state.modalStacks[grant.user] = [fv.id];
  }
  ctx.emit('view', { kind: 'opened', view: fv });
  return { ok: true, view: toViewOutput(ctx.state, fv) };
};

const push: MethodHandler = (ctx, args) => {
  const view = readView(ctx, args, 'modal');
  if (isBody(view)) return view;
  const trigger = str(args, 'trigger_id') ?? str(args, 'interactivity_pointer');
  if (!trigger) return fail('invalid_arguments');
  const externalId = typeof view.external_id === 'string' ? view.external_id : '';
  if (externalIdTaken(ctx.state, externalId)) return fail('duplicate_external_id');
  const grant = ctx.consumeTrigger(trigger);
  if ('error' in grant) return fail(grant.error);
  const stack = grant.user ? ctx.state.modalStacks[grant.user] : undefined;
  if (!grant.user || !stack || stack.length === 0) return fail('not_found');
  if (stack.length >= MAX_MODAL_STACK) return fail('push_limit_reached');
  const fv = createView(ctx, 'modal', grant.user, view, stack[0]!, stack[stack.length - 1]!);
  stack.push(fv.id);
  ctx.emit('view', { kind: 'pushed', view: fv });
  return { ok: true, view: toViewOutput(ctx.state, fv) };
};

const update: MethodHandler = (ctx, args) => {
  const viewId = str(args, 'view_id');
  const externalId = str(args, 'external_id');
  if (!viewId && !externalId) return fail('invalid_arguments');
  const fv = viewId
    ? ctx.state.views[viewId]
    : Object.values(ctx.state.views).find((v) => v.external_id === externalId);
  if (!fv || fv.closed) return fail('not_found');
  const hash = str(args, 'hash');
  if (hash && hash !== fv.hash) return fail('hash_conflict');
  const view = readView(ctx, args, fv.type);
  if (isBody(view)) return view;
  const newExternalId = typeof view.external_id === 'string' ? view.external_id : fv.external_id;
  if (externalIdTaken(ctx.state, newExternalId, fv.id)) return fail('duplicate_external_id');
  keepStateOfSurvivingBlocks(fv, view);
  fv.view = view;
  fv.external_id = newExternalId;
  fv.hash = mintViewHash(ctx.now());
  ctx.emit('view', { kind: 'updated', view: fv });
  return { ok: true, view: toViewOutput(ctx.state, fv) };
};

const publish: MethodHandler = (ctx, args) => {
  const userId = str(args, 'user_id');
  if (!userId || !ctx.state.users.some((u) => u.id === userId && !u.is_bot)) return fail('user_not_found');
  const existingId = ctx.state.homeViews[userId];
  const existing = existingId ? ctx.state.views[existingId] : undefined;
  const hash = str(args, 'hash');
  if (hash && existing && hash !== existing.hash) return fail('hash_conflict');
  const view = readView(ctx, args, 'home');
  if (isBody(view)) return view;
  // A user's Home tab keeps its view id across publishes, as in Slack.
  if (existing) {
    keepStateOfSurvivingBlocks(existing, view);
    existing.view = view;
    existing.external_id = typeof view.external_id === 'string' ? view.external_id : existing.external_id;
    existing.hash = mintViewHash(ctx.now());
    ctx.emit('view', { kind: 'published', view: existing });
    return { ok: true, view: toViewOutput(ctx.state, existing) };
  }
  const fv = createView(ctx, 'home', userId, view, null, null);
  ctx.state.homeViews[userId] = fv.id;
  ctx.emit('view', { kind: 'published', view: fv });
  return { ok: true, view: toViewOutput(ctx.state, fv) };
};

export const viewMethods: Record<string, MethodHandler> = {
  'views.open': open,
  'views.push': push,
  'views.update': update,
  'views.publish': publish,
};
