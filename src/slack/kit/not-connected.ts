// Many-workspace mode: until an installation has connected its Runbook API, every command, button, form,
// shortcut and mention answers, privately, that the workspace is not connected yet (or that its address
// is no longer allowed by the operator) and who can connect it; typeahead gets no options. App Home (where Connect is) and the Connect form itself pass, as does
// `/runbook help`. Runs after the request context (../context.ts), whose deps say whether it is connected.
import type { AnyMiddlewareArgs, App } from '@slack/bolt';
import { errorMessage } from './common.ts';
import { contextOf } from './handler-context.ts';
import { ACTIONS, VIEWS } from './ids.ts';
import { unconnectedSentence } from './tenancy.ts';

type Body = {
  type?: string;
  command?: string;
  text?: string;
  actions?: Array<{ action_id?: string }>;
  view?: { callback_id?: string };
  event?: { type?: string };
};

/** Requests that work before the workspace is connected. */
const PASSING_ACTIONS = new Set<string>([ACTIONS.connectOpen, ACTIONS.connectRemove, ACTIONS.homeRefresh]);

function passes(body: Body): boolean {
  if (typeof body.command === 'string') return /^\s*help\b/i.test(body.text ?? '');
  if (body.type === 'block_actions') return (body.actions ?? []).every((a) => PASSING_ACTIONS.has(a.action_id ?? ''));
  if (body.type === 'view_submission' || body.type === 'view_closed') return body.view?.callback_id === VIEWS.connect;
  // Events: only a mention asks for something; App Home and uninstall events pass.
  if (body.type === 'event_callback') return body.event?.type !== 'app_mention';
  return false;
}

export function registerNotConnectedGate(app: App): void {
  app.use(async (args) => {
    const request = args as AnyMiddlewareArgs & {
      context: Record<string, unknown>;
      next: () => Promise<void>;
      ack?: (response?: unknown) => Promise<void>;
    };
    const ctx = contextOf(request);
    const tenancy = ctx.deps.tenancy;
    const body = request.body as Body;
    if (!tenancy || tenancy.status || passes(body)) {
      await request.next();
      return;
    }
    if (body.type === 'block_suggestion') {
      await request.ack?.({ options: [] });
      return;
    }
    await request.ack?.();
    await ctx
      .respond(errorMessage(unconnectedSentence(tenancy)))
      .catch((err: unknown) => ctx.deps.logger.warn({ err }, 'could not say the workspace is not connected'));
  });
}
