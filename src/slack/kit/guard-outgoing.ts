// Installs the outgoing guard (../outgoing-guard.ts) on everything a listener can answer through: the
// Web API clients (the app's and each request's) and acks — every receiver (HTTP and Socket Mode)
// hands events to app.processEvent, so its ack is wrapped there once (response_action views, field
// errors, command replies, typeahead options). Bolt gives middleware a copy of the listener arguments,
// so respond cannot be wrapped here: it goes through ./handler-context.ts respondWith, which guards.
import type { App, ReceiverEvent } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { guardClient, guardOutgoing } from './outgoing-guard.ts';

export function registerOutgoingGuard(app: App): void {
  guardClient(app.client);
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event: ReceiverEvent) =>
    processEvent({
      ...event,
      ack: (response?: unknown) => event.ack(response === undefined ? undefined : guardOutgoing(response)),
    });
  app.use(async (args) => {
    const a = args as unknown as { client: WebClient; next: () => Promise<void> };
    guardClient(a.client);
    await a.next();
  });
}
