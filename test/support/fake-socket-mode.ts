// Slack's side of Socket Mode for tests: apps.connections.open (on the fake Web API) points the bot
// here; we greet it with `hello` and hand it envelopes (slash commands, interactions, events) the way
// Slack does, and resolve with the bot's acknowledgement.
import { randomUUID } from 'node:crypto';
import { type WebSocket, WebSocketServer } from 'ws';
import type { BotResponse, SlackRequestBody } from '../../src/sandbox/slack-requests.ts';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface FakeSocketMode {
  url: string;
  /** Resolves once the bot has connected. */
  connected(): Promise<void>;
  /** Sends an envelope; resolves with the bot's ack (its optional response payload). */
  send(type: EnvelopeType, payload: object): Promise<{ envelope_id: string; payload?: unknown }>;
  close(): Promise<void>;
}

export async function startFakeSocketMode(): Promise<FakeSocketMode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let socket: WebSocket | null = null;
  let onConnect: (() => void) | null = null;
  const connectedOnce = new Promise<void>((resolve) => {
    onConnect = resolve;
  });
  const acks = new Map<string, (ack: { envelope_id: string; payload?: unknown }) => void>();

  server.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      if (message.envelope_id) acks.get(message.envelope_id)?.(message as { envelope_id: string; payload?: unknown });
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake-socket-mode', approximate_connection_time: 18_060 },
        connection_info: { app_id: 'A0SANDBOX' },
      }),
    );
    onConnect?.();
  });

  return {
    url: `ws://127.0.0.1:${port}/link`,
    connected: () => connectedOnce,
    send(type, payload) {
      if (!socket) return Promise.reject(new Error('the bot is not connected'));
      const envelopeId = randomUUID();
      const acked = new Promise<{ envelope_id: string; payload?: unknown }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ack for ${type} within 3 s`)), 3_000);
        acks.set(envelopeId, (ack) => {
          clearTimeout(timer);
          resolve(ack);
        });
      });
      socket.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
          retry_attempt: 0,
          retry_reason: '',
        }),
      );
      return acked;
    },
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What a SlackUser sends, delivered the Socket Mode way (SlackUserOptions.deliver): a slash command's form
 * fields as a `slash_commands` payload, an interaction's `payload` as `interactive`, an Events API body as
 * `events_api`. The bot's ack (and its response payload) comes back as the answer.
 */
export function deliverOverSocket(socket: FakeSocketMode): (body: SlackRequestBody) => Promise<BotResponse> {
  return async (body) => {
    let ack: { envelope_id: string; payload?: unknown };
    if (body.kind === 'json') ack = await socket.send('events_api', JSON.parse(body.raw) as object);
    else {
      const form = new URLSearchParams(body.raw);
      const payload = form.get('payload');
      ack = payload
        ? await socket.send('interactive', JSON.parse(payload) as object)
        : await socket.send('slash_commands', Object.fromEntries(form));
    }
    const json = ack.payload;
    return { status: 200, headers: {}, body: json === undefined ? '' : JSON.stringify(json), json };
  };
}
