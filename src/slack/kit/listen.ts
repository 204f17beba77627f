// Listeners as data: each feature lists its named callbacks in its register.ts, and `registerListeners`
// (../context.ts) wires them onto Bolt, handing each the request context the middleware built. A
// callback never assembles its context. A button registered with `what` is acked first and a failure
// becomes one sentence ("Deleting the schedule failed. …"); any other callback acks itself. Every block
// action says whether it is `acting` (makes something happen: once-only, see src/runs/once.ts, and the
// test that clicks every acting button twice) or `navigating` (paging, opening a form, refreshing).
import type {
  ActionConstraints,
  AllMiddlewareArgs,
  App,
  BlockAction,
  GlobalShortcut,
  MessageShortcut,
  OptionsConstraints,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { HandlerContext } from './handler-context.ts';

export type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
export type OptionsArgs = SlackOptionsMiddlewareArgs<'block_suggestion'> & AllMiddlewareArgs;
export type ShortcutArgs<S extends GlobalShortcut | MessageShortcut = GlobalShortcut | MessageShortcut> =
  SlackShortcutMiddlewareArgs<S> & AllMiddlewareArgs;
export type EventArgs<E extends string> = SlackEventMiddlewareArgs<E> & AllMiddlewareArgs;
export type FunctionArgs = Parameters<Parameters<App['function']>[1]>[0];

/**
 * What a block action does: `acting` makes something happen (a run, a deletion, a decision) and works once
 * per person who may use it; `navigating` only shows or opens something and may be clicked again.
 */
export type ActionEffect = 'acting' | 'navigating';

/** A listener: Bolt's arguments and the request context. */
export type Listener<A> = (args: A, ctx: HandlerContext) => Promise<void>;

export type Registration =
  | {
      kind: 'action';
      constraint: ActionConstraints<BlockAction>;
      effect: ActionEffect;
      /** Set: acked first, and a failure is reported as "<what> failed. …". */
      what?: string;
      listener: Listener<ActionArgs>;
    }
  | { kind: 'view'; callbackId: string; listener: Listener<ViewArgs> }
  | { kind: 'command'; command: string; listener: Listener<CommandArgs> }
  | { kind: 'options'; constraint: OptionsConstraints; listener: Listener<OptionsArgs> }
  | { kind: 'shortcut'; callbackId: string; listener: Listener<ShortcutArgs<never>> }
  | { kind: 'event'; event: string; listener: Listener<EventArgs<string>> }
  | { kind: 'function'; callbackId: string; listener: Listener<FunctionArgs> };

/**
 * The action ids `<actionId>_<suffix>` of a family of buttons (ids must be unique within a block: Previous /
 * Next, one per row of a pick list); `suffix`, when given, is a pattern the whole suffix must match.
 */
export function suffixed(actionId: string, suffix?: string): RegExp {
  return new RegExp(`^${actionId}_${suffix === undefined ? '' : `(?:${suffix})$`}`);
}

/** A button or select: acked first; a failure becomes "<what> failed. …". */
export function button(
  actionId: string | RegExp,
  what: string,
  effect: ActionEffect,
  listener: Listener<ActionArgs>,
): Registration {
  return { kind: 'action', constraint: { action_id: actionId }, effect, what, listener };
}

/** A block action that acks itself (a picker answered in its modal, say). */
export function action(
  constraint: ActionConstraints<BlockAction>,
  effect: ActionEffect,
  listener: Listener<ActionArgs>,
): Registration {
  return { kind: 'action', constraint, effect, listener };
}

export function view(callbackId: string, listener: Listener<ViewArgs>): Registration {
  return { kind: 'view', callbackId, listener };
}

export function command(name: string, listener: Listener<CommandArgs>): Registration {
  return { kind: 'command', command: name, listener };
}

export function options(constraint: OptionsConstraints, listener: Listener<OptionsArgs>): Registration {
  return { kind: 'options', constraint, listener };
}

export function shortcut<S extends GlobalShortcut | MessageShortcut>(
  callbackId: string,
  listener: Listener<ShortcutArgs<S>>,
): Registration {
  return { kind: 'shortcut', callbackId, listener: listener as Listener<ShortcutArgs<never>> };
}

export function event<E extends string>(name: E, listener: Listener<EventArgs<E>>): Registration {
  return { kind: 'event', event: name, listener: listener as unknown as Listener<EventArgs<string>> };
}

export function stepFunction(callbackId: string, listener: Listener<FunctionArgs>): Registration {
  return { kind: 'function', callbackId, listener };
}
