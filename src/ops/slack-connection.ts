// Whether the Socket Mode WebSocket is up, read from the socket client's state events. Bolt keeps
// its receiver private, so this is the one place that reaches for it.
import type { App } from '@slack/bolt';

interface StateEmitter {
  on(event: string, listener: () => void): unknown;
}

/** Returns a reader of the connection state; always false when the app is not in Socket Mode. */
export function socketModeConnection(app: App): () => boolean {
  const client = (app as unknown as { receiver?: { client?: StateEmitter } }).receiver?.client;
  if (!client || typeof client.on !== 'function') return () => false;
  let connected = false;
  client.on('connected', () => {
    connected = true;
  });
  for (const state of ['connecting', 'reconnecting', 'disconnecting', 'disconnected']) {
    client.on(state, () => {
      connected = false;
    });
  }
  return () => connected;
}
