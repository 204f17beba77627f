// Installs the outgoing guard (../outgoing-guard.ts) on the Web API clients listeners answer through:
// the app's and each request's (Bolt hands middleware a copy of the listener arguments, so ack and
// respond cannot be wrapped here; respond goes through commands/context.ts respondWith, which guards).
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { guardClient } from '../outgoing-guard.ts';

export function registerOutgoingGuard(app: App): void {
  guardClient(app.client);
  app.use(async (args) => {
    const a = args as unknown as { client: WebClient; next: () => Promise<void> };
    guardClient(a.client);
    await a.next();
  });
}
