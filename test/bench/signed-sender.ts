// Sends signed Slack requests the way sendToBot does, but over one undici keep-alive pool so the
// benchmark measures the app, not TCP handshakes. Returns the response and the time to it.
import { Agent, request } from 'undici';
import { type SlackRequestBody, signSlackRequest } from '../../src/sandbox/slack-requests.ts';

export interface SignedResponse {
  status: number;
  body: string;
  ms: number;
}

export class SignedSender {
  readonly #url: string;
  readonly #secret: string;
  readonly #agent: Agent;

  constructor(url: string, secret: string, connections = 64) {
    this.#url = url;
    this.#secret = secret;
    this.#agent = new Agent({ connections, keepAliveTimeout: 30_000, pipelining: 1 });
  }

  async send(body: SlackRequestBody, onSent?: (startedAt: number) => void): Promise<SignedResponse> {
    const headers = signSlackRequest(this.#secret, body.raw, Date.now() / 1000);
    const started = performance.now();
    onSent?.(started);
    const res = await request(this.#url, {
      method: 'POST',
      dispatcher: this.#agent,
      headers: {
        'content-type': body.kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
        ...headers,
      },
      body: body.raw,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text, ms: performance.now() - started };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
