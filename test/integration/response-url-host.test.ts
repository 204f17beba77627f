// A response_url that is not Slack's (a signed request carrying another host: a leaked signing secret, a
// proxy rewriting bodies) is never posted to — the bot would otherwise send its answers, and a person's
// data, to any URL it is handed. The person is answered privately through the Web API instead.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blockActionsPayload,
  formRequest,
  interactivityBody,
  sendToBot,
  slashCommandBody,
} from '../../src/sandbox/slack-requests.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
let evil: Server;
let evilUrl: string;
const evilHits: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  evil = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      evilHits.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/commands/T0SANDBOX/1/x`;
});
afterAll(async () => {
  await h.stop();
  await new Promise((resolve) => evil.close(resolve));
});

describe('a response_url to another host', () => {
  it('a slash command: nothing is posted there; the answer reaches the person as an ephemeral', async () => {
    const body = slashCommandBody({
      command: '/runbook',
      text: 'subscriptions',
      userId: 'U01ALICE',
      channelId: 'C01OPS',
      teamId: 'T0SANDBOX',
      triggerId: h.fake.newTriggerId('U01ALICE'),
      responseUrl: evilUrl,
    });
    const before = h.fake.state.ephemerals.length;
    const res = await sendToBot(h.botUrl, SIGNING_SECRET, formRequest(body));
    expect(res.status).toBe(200);
    await waitFor(
      () =>
        h.fake.state.ephemerals
          .slice(before)
          .find((e) => e.user === 'U01ALICE' && JSON.stringify(e.blocks).includes('subscription')),
      'the answer as an ephemeral',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(evilHits).toEqual([]);
  });

  it('a button: nothing is posted there either', async () => {
    const payload = blockActionsPayload({
      userId: 'U01ALICE',
      teamId: 'T0SANDBOX',
      triggerId: h.fake.newTriggerId('U01ALICE'),
      channel: { id: 'C01OPS' },
      message: { ts: '1700000000.000100' },
      isEphemeral: true,
      responseUrl: evilUrl,
      actions: [{ action_id: ACTIONS.confirmCancel, block_id: 'b', type: 'button', value: '{"d":"nope"}' }],
    });
    const before = h.fake.state.ephemerals.length;
    const res = await sendToBot(h.botUrl, SIGNING_SECRET, formRequest(interactivityBody(payload)));
    expect(res.status).toBe(200);
    await waitFor(
      () => h.fake.state.ephemerals.slice(before).find((e) => e.user === 'U01ALICE'),
      'the answer as an ephemeral',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(evilHits).toEqual([]);
  });
});
