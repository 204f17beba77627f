// The baseline every Slack-side scenario is compared with: a bare Bolt App on HTTPReceiver with
// the same signing secret and no work in its handlers beyond what the scenario names.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

export interface BareBolt {
  app: App;
  url: string;
  stop(): Promise<void>;
}

export async function startBareBolt(
  signingSecret: string,
  setup: (app: App) => void,
  options: { botToken?: string; slackApiUrl?: string; unhandledRequestTimeoutMillis?: number } = {},
): Promise<BareBolt> {
  const receiver = new HTTPReceiver({
    signingSecret,
    endpoints: '/slack/events',
    processBeforeResponse: false,
    ...(options.unhandledRequestTimeoutMillis
      ? { unhandledRequestTimeoutMillis: options.unhandledRequestTimeoutMillis }
      : {}),
  });
  const app = new App({
    token: options.botToken ?? 'xoxb-bare',
    receiver,
    logLevel: LogLevel.ERROR,
    ...(options.slackApiUrl ? { clientOptions: { slackApiUrl: options.slackApiUrl } } : {}),
  });
  setup(app);
  // Loopback only: a benchmark helper must not listen on the network.
  const server = (await receiver.start({ port: 0, host: '127.0.0.1' })) as Server;
  const { port } = server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}/slack/events`,
    async stop() {
      await app.stop();
    },
  };
}
