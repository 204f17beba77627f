// Each Slack event is handled once, across replicas. Slack delivers an event again when it did not hear
// our answer in time (the retry carries X-Slack-Retry-Num and the same event_id), and sends a mention
// again when the message is edited (a new event_id, the same message ts and client_msg_id). The store
// remembers the keys of every event handled (src/store: slackEvents), so only the first delivery reaches
// a listener; edits of a message are never handled as new commands. A Workflow Builder step is left to
// its own claim (workflowSteps.begin), which also survives a crash between delivery and run.
import type { AnyMiddlewareArgs, App } from '@slack/bolt';
import type { SlackDeps } from './deps.ts';

interface EventBody {
  type?: string;
  event_id?: string;
  event?: {
    type?: string;
    subtype?: string;
    channel?: string;
    ts?: string;
    client_msg_id?: string;
  };
}

/** The keys that identify one event (empty: not an event this applies to). */
export function eventKeys(body: EventBody): string[] {
  const event = body.event;
  if (body.type !== 'event_callback' || !event || event.type === 'function_executed') return [];
  const keys = body.event_id ? [`event:${body.event_id}`] : [];
  if (event.type === 'app_mention' || event.type === 'message') {
    if (event.channel && event.ts) keys.push(`message:${event.channel}:${event.ts}`);
    if (event.client_msg_id) keys.push(`client-msg:${event.client_msg_id}`);
  }
  return keys;
}

export function registerHandleOnce(app: App, deps: SlackDeps): void {
  app.use(async (args) => {
    const { body, next, context } = args as AnyMiddlewareArgs & {
      next: () => Promise<void>;
      context: { retryNum?: number };
    };
    const event = (body as EventBody).event;
    // An edit is never a new request (we get these only if subscribed to message events).
    if ((body as EventBody).type === 'event_callback' && event?.subtype === 'message_changed') return;
    const keys = eventKeys(body as EventBody);
    if (keys.length > 0) {
      let first = true;
      try {
        first = await deps.access.store.slackEvents.claim(keys, deps.now());
      } catch (err) {
        // The store is where every other step would fail too; handling beats silently dropping.
        deps.logger.warn({ err, type: event?.type }, 'could not record the event; handling it anyway');
      }
      if (!first) {
        deps.logger.info(
          { type: event?.type, eventId: (body as EventBody).event_id, retryNum: context.retryNum ?? null },
          'ignored an event already handled (a retry or an edited message)',
        );
        return;
      }
    }
    await next();
  });
}
