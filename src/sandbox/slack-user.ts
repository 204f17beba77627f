// A person using Slack, simulated: types slash commands, clicks buttons in messages and modals,
// fills and submits modals, types into typeaheads. It reads what the fake Slack shows (messages,
// ephemerals, views) and sends the bot exactly what Slack would send, signed. Tests and the
// sandbox UI server both drive the bot through this one implementation.
import type { FakeSlack } from './fake-slack-api.ts';
import type { FunctionDefinition, StartedFunction } from './fake-slack-functions.ts';
import type { FakeEphemeral, FakeMessage, FakeView } from './fake-slack-state.ts';
import { appMentionEvent, messageShortcutPayload } from './slack-entry-requests.ts';
import {
  appHomeOpenedEvent,
  type BlockActionInput,
  type BotResponse,
  blockActionsPayload,
  blockSuggestionPayload,
  eventCallbackBody,
  formRequest,
  interactivityBody,
  jsonRequest,
  type SlackRequestBody,
  sendToBot,
  shortcutPayload,
  slashCommandBody,
  type ViewStateValues,
  viewClosedPayload,
  viewSubmissionPayload,
} from './slack-requests.ts';

export interface SlackUserOptions {
  fake: FakeSlack;
  /** The bot's events endpoint, e.g. http://127.0.0.1:3001/slack/events, and the secret Slack signs with. */
  botUrl?: string;
  signingSecret?: string;
  /** Delivers instead of a signed POST to `botUrl` (Socket Mode: an envelope on the bot's WebSocket). */
  deliver?: (body: SlackRequestBody) => Promise<BotResponse>;
  userId: string;
  teamId?: string;
  /** Enterprise Grid (slash commands): the org, and whether the app is installed org-wide. */
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/** Where a clicked element lives. */
export type Surface =
  | { kind: 'message'; message: FakeMessage }
  | { kind: 'ephemeral'; ephemeral: FakeEphemeral; responseUrl?: string }
  | { kind: 'view'; view: FakeView };

type Block = { type?: string; block_id?: string; elements?: unknown[]; accessory?: unknown; element?: unknown };
type Element = { type?: string; action_id?: string; value?: string; text?: unknown; options?: unknown[] };

export function blocksOf(surface: Surface): Block[] {
  if (surface.kind === 'message') return (surface.message.blocks ?? []) as Block[];
  if (surface.kind === 'ephemeral') return (surface.ephemeral.blocks ?? []) as Block[];
  return ((surface.view.view.blocks as unknown[]) ?? []) as Block[];
}

/** Finds an interactive element by action_id (exact, or a predicate) with its block id. */
export function findElement(
  blocks: Block[],
  match: string | ((el: Element, block: Block) => boolean),
): { element: Element; blockId: string } | null {
  const test = typeof match === 'string' ? (el: Element) => el.action_id === match : match;
  for (const block of blocks) {
    const candidates = [...((block.elements as Element[]) ?? []), block.accessory as Element, block.element as Element];
    for (const el of candidates) {
      if (el && typeof el === 'object' && el.action_id && test(el, block)) {
        return { element: el, blockId: block.block_id ?? '' };
      }
    }
  }
  return null;
}

export class SlackUser {
  readonly #o: SlackUserOptions;

  constructor(options: SlackUserOptions) {
    this.#o = options;
  }

  get id(): string {
    return this.#o.userId;
  }

  get #teamId(): string {
    return this.#o.teamId ?? this.#o.fake.state.teamId;
  }

  #send(body: SlackRequestBody): Promise<BotResponse> {
    const { deliver, botUrl, signingSecret } = this.#o;
    if (deliver) return deliver(body);
    if (botUrl === undefined || signingSecret === undefined)
      throw new Error('a SlackUser needs botUrl and signingSecret, or deliver');
    return sendToBot(botUrl, signingSecret, body);
  }

  /** `/runbook <text>` in a channel. */
  command(text: string, channelId: string, command = '/runbook'): Promise<BotResponse> {
    const { fake } = this.#o;
    return this.#send(
      formRequest(
        slashCommandBody({
          command,
          text,
          userId: this.#o.userId,
          channelId,
          teamId: this.#teamId,
          ...(this.#o.enterpriseId ? { enterpriseId: this.#o.enterpriseId } : {}),
          ...(this.#o.isEnterpriseInstall ? { isEnterpriseInstall: true } : {}),
          triggerId: fake.newTriggerId(this.#o.userId),
          responseUrl: fake.newResponseUrl({ channel: channelId, user: this.#o.userId }),
        }),
      ),
    );
  }

  /** Clicks a button / picks from a select / overflow in a message, ephemeral or view. */
  act(
    surface: Surface,
    match: string | ((el: Element, block: Block) => boolean),
    extra: Partial<BlockActionInput> = {},
  ) {
    const found = findElement(blocksOf(surface), match);
    if (!found) throw new Error(`no element matching ${String(match)} on that surface`);
    const { element, blockId } = found;
    const action: BlockActionInput = {
      action_id: element.action_id!,
      block_id: blockId,
      type: element.type ?? 'button',
      ...(element.value !== undefined ? { value: element.value } : {}),
      ...(element.type === 'button' && element.text ? { text: element.text as BlockActionInput['text'] } : {}),
      ...extra,
    };
    const { fake } = this.#o;
    const common = {
      userId: this.#o.userId,
      teamId: this.#teamId,
      ...this.#grid(),
      triggerId: fake.newTriggerId(this.#o.userId),
      actions: [action],
    };
    let payload: Record<string, unknown>;
    if (surface.kind === 'view') {
      const view = fake.viewOutput(surface.view.id) ?? { id: surface.view.id };
      payload = blockActionsPayload({ ...common, view: view as { id: string } });
    } else if (surface.kind === 'message') {
      const m = surface.message;
      payload = blockActionsPayload({
        ...common,
        channel: { id: m.channel },
        message: { ...m, ts: m.ts } as { ts: string },
        responseUrl: fake.newResponseUrl({ channel: m.channel, user: this.#o.userId, messageTs: m.ts }),
      });
    } else {
      const e = surface.ephemeral;
      payload = blockActionsPayload({
        ...common,
        channel: { id: e.channel },
        message: { ts: e.ts },
        isEphemeral: true,
        responseUrl:
          surface.responseUrl ?? fake.newResponseUrl({ channel: e.channel, user: this.#o.userId, messageTs: e.ts }),
      });
    }
    return this.#send(formRequest(interactivityBody(payload)));
  }

  /** Submits a modal with the given input values (block_id → action_id → element state). */
  submit(viewId: string, values?: ViewStateValues): Promise<BotResponse> {
    const { fake } = this.#o;
    const view = fake.viewOutput(viewId);
    if (!view) throw new Error(`no view ${viewId}`);
    return this.#send(
      formRequest(
        interactivityBody(
          viewSubmissionPayload({
            userId: this.#o.userId,
            teamId: this.#teamId,
            ...this.#grid(),
            triggerId: fake.newTriggerId(this.#o.userId),
            view: view as { id: string },
            ...(values ? { values } : {}),
          }),
        ),
      ),
    );
  }

  /**
   * Closes a modal (Cancel). Like Slack, tells the bot (view_closed) only when the view asked for it
   * with notify_on_close; otherwise the bot hears nothing and the answer is Slack's own 200.
   */
  async close(viewId: string): Promise<BotResponse> {
    const { fake } = this.#o;
    const view = fake.viewOutput(viewId);
    if (!view) throw new Error(`no view ${viewId}`);
    fake.closeModal(this.#o.userId);
    if ((view as { notify_on_close?: unknown }).notify_on_close !== true) {
      return { status: 200, headers: {}, body: '', json: null };
    }
    return this.#send(
      formRequest(
        interactivityBody(
          viewClosedPayload({
            userId: this.#o.userId,
            teamId: this.#teamId,
            ...this.#grid(),
            view: view as { id: string },
          }),
        ),
      ),
    );
  }

  /** Types into an external select; returns the options the bot offered. */
  async suggest(viewId: string, actionId: string, blockId: string, query: string): Promise<BotResponse> {
    const view = this.#o.fake.viewOutput(viewId);
    return this.#send(
      formRequest(
        interactivityBody(
          blockSuggestionPayload({
            userId: this.#o.userId,
            teamId: this.#teamId,
            ...this.#grid(),
            actionId,
            blockId,
            value: query,
            ...(view ? { view: view as { id: string } } : {}),
          }),
        ),
      ),
    );
  }

  /** The global shortcut. */
  shortcut(callbackId: string): Promise<BotResponse> {
    return this.#send(
      formRequest(
        interactivityBody(
          shortcutPayload({
            userId: this.#o.userId,
            teamId: this.#teamId,
            ...this.#grid(),
            callbackId,
            triggerId: this.#o.fake.newTriggerId(this.#o.userId),
          }),
        ),
      ),
    );
  }

  /**
   * Types `@runbook-bot <text>` in a channel, or in a thread when `threadTs` is given: the message
   * appears in the channel and the bot gets the app_mention event.
   */
  mention(text: string, channelId: string, threadTs?: string): Promise<BotResponse & { message: FakeMessage }> {
    const { fake } = this.#o;
    const botUserId = fake.state.botUserId;
    const message = fake.addUserMessage({
      channel: channelId,
      user: this.#o.userId,
      text: `<@${botUserId}> ${text}`,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    const event = appMentionEvent({
      userId: this.#o.userId,
      teamId: this.#teamId,
      channelId: message.channel,
      text,
      botUserId,
      ts: message.ts,
      ...(threadTs ? { threadTs } : {}),
    });
    return this.#send(jsonRequest(eventCallbackBody({ teamId: this.#teamId, ...this.#grid(), event }))).then((r) => ({
      ...r,
      message,
    }));
  }

  /** A message shortcut used on `message` (the message's "…" menu). */
  messageShortcut(callbackId: string, message: FakeMessage): Promise<BotResponse> {
    const { fake } = this.#o;
    const channel = fake.state.channels.find((c) => c.id === message.channel);
    return this.#send(
      formRequest(
        interactivityBody(
          messageShortcutPayload({
            userId: this.#o.userId,
            teamId: this.#teamId,
            ...this.#grid(),
            callbackId,
            triggerId: fake.newTriggerId(this.#o.userId),
            responseUrl: fake.newResponseUrl({ channel: message.channel, user: this.#o.userId }),
            channel: { id: message.channel, name: channel?.name ?? 'directmessage' },
            message: {
              ts: message.ts,
              text: message.text ?? '',
              ...(message.user ? { user: message.user } : {}),
              ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
            },
          }),
        ),
      ),
    );
  }

  /**
   * A workflow reaches the app's custom step: the fake records the step run and the bot gets
   * function_executed exactly as Slack sends it. The caller fills the inputs as Workflow Builder would;
   * Slack itself fills the interactivity inputs with this person when they started the workflow
   * (`startedBy: 'person'`, the default), or leaves them empty when nobody did (`'nobody'`: a schedule).
   */
  async runWorkflowStep(
    callbackId: string,
    definition: FunctionDefinition,
    inputs: Record<string, unknown>,
    options: { startedBy?: 'person' | 'nobody' } = {},
  ): Promise<BotResponse & { started: StartedFunction }> {
    const interactor = options.startedBy === 'nobody' ? null : this.#o.userId;
    const started = this.#o.fake.startFunction({
      callbackId,
      definition,
      inputs,
      interactor,
      teamId: this.#teamId,
      ...(this.#o.enterpriseId ? { enterpriseId: this.#o.enterpriseId } : {}),
    });
    const response = await this.#send(
      jsonRequest(eventCallbackBody({ teamId: this.#teamId, ...this.#grid(), event: started.event })),
    );
    return { ...response, started };
  }

  /** Opens the App Home tab. */
  openHome(): Promise<BotResponse> {
    return this.#send(
      jsonRequest(
        eventCallbackBody({
          teamId: this.#teamId,
          ...this.#grid(),
          event: appHomeOpenedEvent({ userId: this.#o.userId, channelId: this.#homeChannel() }),
        }),
      ),
    );
  }

  /** The person's Grid org on interaction payloads, as Slack sends it. */
  #grid(): { enterpriseId?: string; isEnterpriseInstall?: boolean } {
    return {
      ...(this.#o.enterpriseId ? { enterpriseId: this.#o.enterpriseId } : {}),
      ...(this.#o.isEnterpriseInstall ? { isEnterpriseInstall: true } : {}),
    };
  }

  #homeChannel(): string {
    return this.#o.fake.state.ims[this.#o.userId] ?? `D${this.#o.userId.slice(1)}`;
  }

  /** The modal on top of this user's stack, if any. */
  topModal(): FakeView | null {
    const stack = this.#o.fake.state.modalStacks[this.#o.userId] ?? [];
    const id = stack[stack.length - 1];
    return id ? (this.#o.fake.state.views[id] ?? null) : null;
  }
}
