// Starts a fake Slack with an injectable clock and a real WebClient pointed at it.
import { type Logger, LogLevel, WebClient, type WebClientOptions } from '@slack/web-api';
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';

export const START_MS = 1_732_180_000_000;

// WebClient logs Slack's "[ERROR] …" response messages; tests assert on them instead of printing them.
export const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

export interface FakeSlackFixture {
  fake: FakeSlack;
  client: WebClient;
  clock: { ms: number };
  newClient(options?: WebClientOptions, token?: string): WebClient;
}

export async function startFixture(options: FakeSlackOptions = {}): Promise<FakeSlackFixture> {
  const clock = { ms: START_MS };
  const fake = await startFakeSlack({ now: () => clock.ms, ...options });
  const newClient = (extra: WebClientOptions = {}, token = 'xoxb-test') =>
    new WebClient(token, { slackApiUrl: fake.url, retryConfig: { retries: 0 }, logger: quietLogger, ...extra });
  return { fake, client: newClient(), clock, newClient };
}

export const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
