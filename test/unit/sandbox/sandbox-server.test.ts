// The sandbox server against a fake bot: what it sends is signed like Slack, and what Slack does
// with the bot's answers (response_action, failed commands) shows up in the state the UI reads.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { type Sandbox, startSandbox } from '../../../src/sandbox/sandbox-server.ts';
import { signSlackRequest } from '../../../src/sandbox/slack-requests.ts';
import { SlackUser } from '../../../src/sandbox/slack-user.ts';

const SECRET = 'unit-signing-secret';
const TOKEN = 'xoxb-unit';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let fake: FakeSlack;
let sandbox: Sandbox;
let bot: Server;
const received: Received[] = [];
/** What the fake bot answers next: status and JSON body (undefined → empty 200). */
let answer: { status: number; body?: unknown } = { status: 200 };

beforeAll(async () => {
  fake = await startFakeSlack({ port: 0, botToken: TOKEN });
  bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (answer.body === undefined) {
        res.writeHead(answer.status);
        res.end();
      } else {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      }
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  const botUrl = `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`;
  sandbox = await startSandbox({
    port: 0,
    fake,
    botUrl,
    signingSecret: SECRET,
    logger: createLogger({ level: 'silent' }),
  });
});

afterAll(async () => {
  await sandbox.close();
  await fake.close();
  await new Promise((r) => bot.close(r));
});

afterEach(() => {
  received.length = 0;
  answer = { status: 200 };
  fake.reset();
});

async function post(path: string, body: object) {
  const res = await fetch(`${sandbox.url}/api/${path}`, {
    method: 'POST',
    // What the sandbox page's own fetch sends: its Origin and a JSON body.
    headers: { 'content-type': 'application/json', origin: sandbox.url },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function state(user = 'U01ALICE') {
  const res = await fetch(`${sandbox.url}/api/state?user=${user}`);
  return (await res.json()) as {
    ephemerals: Array<{ text: string }>;
    modal: Array<{ id: string; view: { title: { text: string } }; errors: Record<string, string> }>;
    messages: Record<string, Array<{ text: string }>>;
  };
}

/** Opens a modal for Alice through the fake Web API, as the bot would. */
async function openModal(title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${fake.url}views.open`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      trigger_id: fake.newTriggerId('U01ALICE'),
      view: {
        type: 'modal',
        callback_id: 'test',
        ...extra,
        title: { type: 'plain_text', text: title },
        submit: { type: 'plain_text', text: 'Save' },
        blocks: [
          {
            type: 'input',
            block_id: 'b1',
            label: { type: 'plain_text', text: 'Name' },
            element: { type: 'plain_text_input', action_id: 'a1' },
          },
        ],
      },
    }),
  });
  const json = (await res.json()) as { ok: boolean; view: { id: string } };
  expect(json.ok).toBe(true);
  return json.view.id;
}

const modalView = (title: string) => ({ type: 'modal', title: { type: 'plain_text', text: title }, blocks: [] });

/** A raw request, so a test can send the headers a hostile page or a rebinding name would. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('sandbox server: who it obeys', () => {
  const command = JSON.stringify({ user: 'U01ALICE', channel: 'C01OPS', text: '/runbook list' });

  it('binds to loopback unless told otherwise', () => {
    expect(new URL(sandbox.url).hostname).toBe('127.0.0.1');
  });

  it('refuses a cross-site simple POST (text/plain, foreign Origin) before the bot sees it', async () => {
    const host = new URL(sandbox.url).host;
    const attempts: Array<Record<string, string>> = [
      { 'content-type': 'text/plain', origin: 'https://evil.example', host },
      { 'content-type': 'text/plain', origin: sandbox.url, host },
      { 'content-type': 'application/x-www-form-urlencoded', origin: sandbox.url, host },
      { 'content-type': 'application/json', origin: 'https://evil.example', host },
      { 'content-type': 'application/json', origin: 'null', host },
      { 'content-type': 'application/json', host },
    ];
    for (const headers of attempts) {
      const res = await rawRequest('POST', '/api/command', headers, command);
      expect([403, 415]).toContain(res.status);
    }
    expect(received).toHaveLength(0);
    // The page's own request still works.
    const ok = await rawRequest(
      'POST',
      '/api/command',
      { 'content-type': 'application/json', origin: sandbox.url, host },
      command,
    );
    expect(ok.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('refuses a foreign Host header (DNS rebinding), for reads too', async () => {
    const port = new URL(sandbox.url).port;
    const evil = `evil.example:${port}`;
    const read = await rawRequest('GET', '/api/state?user=U01ALICE', { host: evil });
    expect(read.status).toBe(421);
    expect(read.body).not.toContain('U01ALICE');
    expect((await rawRequest('GET', '/', { host: evil })).status).toBe(421);
    const write = await rawRequest(
      'POST',
      '/api/command',
      { host: evil, origin: `http://${evil}`, 'content-type': 'application/json' },
      command,
    );
    expect(write.status).toBe(421);
    expect(received).toHaveLength(0);
    expect((await rawRequest('GET', '/api/state?user=U01ALICE', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('caps typed messages and commands at 40,000 characters, like Slack', async () => {
    const long = 'x'.repeat(40_001);
    expect((await post('message', { user: 'U01ALICE', channel: 'C01OPS', text: long })).status).toBe(413);
    expect((await post('command', { user: 'U01ALICE', channel: 'C01OPS', text: `/runbook ${long}` })).status).toBe(413);
    expect((await state()).messages.C01OPS ?? []).toEqual([]);
    expect(received).toHaveLength(0);
    expect((await post('message', { user: 'U01ALICE', channel: 'C01OPS', text: 'x'.repeat(40_000) })).status).toBe(200);
  });

  it('sends view_closed only for a view that asked for it, and closes the others at once', async () => {
    const plain = await openModal('Plain');
    expect((await post('close', { user: 'U01ALICE', viewId: plain })).json.status).toBe(200);
    expect((await state()).modal).toEqual([]);
    expect(received).toHaveLength(0);

    const asked = await openModal('Asked', { notify_on_close: true });
    answer = { status: 200 };
    await post('close', { user: 'U01ALICE', viewId: asked });
    expect((await state()).modal).toEqual([]);
    expect(received.map((r) => JSON.parse(new URLSearchParams(r.body).get('payload')!).type)).toEqual(['view_closed']);
  });

  it('a test closing a modal as a person (SlackUser) tells the bot only when the view asked for it', async () => {
    const botUrl = `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`;
    const alice = new SlackUser({ fake, botUrl, signingSecret: SECRET, userId: 'U01ALICE' });
    const plain = await openModal('Plain');
    expect((await alice.close(plain)).status).toBe(200);
    expect((await state()).modal).toEqual([]);
    expect(received).toHaveLength(0);

    const asked = await openModal('Asked', { notify_on_close: true });
    answer = { status: 200 };
    await alice.close(asked);
    expect(received.map((r) => JSON.parse(new URLSearchParams(r.body).get('payload')!).type)).toEqual(['view_closed']);
  });

  it('lists each user’s time zone, so dates render in the viewer’s zone', async () => {
    const users = ((await state()) as unknown as { users: Array<{ id: string; tz: string }> }).users;
    expect(users.find((u) => u.id === 'U03CAROL')?.tz).toBe('Asia/Tokyo');
  });
});

describe('sandbox server', () => {
  it('serves the UI with a restrictive content security policy and nothing outside it', async () => {
    const page = await fetch(`${sandbox.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('/app.js');
    expect((await fetch(`${sandbox.url}/app.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${sandbox.url}/../sandbox-server.ts`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/sandbox-server.ts`)).status).toBe(404);
  });

  it('sends a slash command signed with the bot secret, shaped like Slack', async () => {
    const res = await post('command', { user: 'U01ALICE', channel: 'C01OPS', text: '/runbook list disk' });
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
    const [request] = received;
    const params = new URLSearchParams(request!.body);
    expect(params.get('command')).toBe('/runbook');
    expect(params.get('text')).toBe('list disk');
    expect(params.get('user_id')).toBe('U01ALICE');
    expect(params.get('channel_id')).toBe('C01OPS');
    const ts = Number(request!.headers['x-slack-request-timestamp']);
    expect(request!.headers['x-slack-signature']).toBe(
      signSlackRequest(SECRET, request!.body, ts)['x-slack-signature'],
    );
  });

  it('sends what a person types with &, < and > escaped, as Slack does (a typed &lt; stays &lt;)', async () => {
    await post('command', { user: 'U01ALICE', channel: 'C01OPS', text: '/runbook status &lt; <!channel> a&b' });
    expect(new URLSearchParams(received[0]!.body).get('text')).toBe('status &amp;lt; &lt;!channel&gt; a&amp;b');
    await post('message', { user: 'U01ALICE', channel: 'C01OPS', text: '@runbook-bot run <@U02BOB> &lt;' });
    const event = (JSON.parse(received[1]!.body) as { event: { text: string } }).event;
    expect(event.text).toBe(`<@${fake.state.botUserId}> run &lt;@U02BOB&gt; &amp;lt;`);
  });

  it('shows a failed command to the person only, as Slack does', async () => {
    answer = { status: 500 };
    await post('command', { user: 'U01ALICE', channel: 'C01OPS', text: '/runbook list' });
    expect((await state('U01ALICE')).ephemerals.map((e) => e.text)).toEqual([
      '/runbook failed with the error "dispatch_failed"',
    ]);
    expect((await state('U02BOB')).ephemerals).toEqual([]);
  });

  it('refuses unknown users and malformed requests with 4xx', async () => {
    expect((await post('command', { user: 'U999', channel: 'C01OPS', text: '/runbook' })).status).toBe(400);
    expect((await post('command', { user: 'U01ALICE', channel: 'C01OPS', text: 'no slash' })).status).toBe(400);
    expect((await post('submit', { user: 'U01ALICE', viewId: 'VNOPE' })).status).toBe(404);
    expect(received).toHaveLength(0);
  });

  it('posts plain messages as the person', async () => {
    await post('message', { user: 'U03CAROL', channel: 'C02DEPLOYS', text: 'hello <b> & &lt;' });
    // Kept as Slack keeps a typed message: &, < and > escaped (the page shows it as typed).
    expect((await state()).messages.C02DEPLOYS?.map((m) => m.text)).toEqual(['hello &lt;b&gt; &amp; &amp;lt;']);
  });

  it('keeps the modal open with field errors on response_action errors, and sends the entered values', async () => {
    const viewId = await openModal('Form');
    answer = { status: 200, body: { response_action: 'errors', errors: { b1: 'Name is taken' } } };
    const values = { b1: { a1: { type: 'plain_text_input', value: 'x' } } };
    const res = await post('submit', { user: 'U01ALICE', viewId, values });
    expect(res.json.outcome).toBe('errors');
    const payload = JSON.parse(new URLSearchParams(received[0]!.body).get('payload')!);
    expect(payload.type).toBe('view_submission');
    expect(payload.view.state.values).toEqual(values);
    const shown = await state();
    expect(shown.modal.map((v) => v.id)).toEqual([viewId]);
    expect(shown.modal[0]!.errors).toEqual({ b1: 'Name is taken' });
  });

  it('applies update, push, and an empty ack (pops a pushed view, then closes)', async () => {
    const viewId = await openModal('First');
    answer = { status: 200, body: { response_action: 'update', view: modalView('Updated') } };
    expect((await post('submit', { user: 'U01ALICE', viewId })).json.outcome).toBe('updated');
    expect((await state()).modal.map((v) => v.view.title.text)).toEqual(['Updated']);

    answer = { status: 200, body: { response_action: 'push', view: modalView('Pushed') } };
    expect((await post('submit', { user: 'U01ALICE', viewId })).json.outcome).toBe('pushed');
    const stacked = (await state()).modal;
    expect(stacked.map((v) => v.view.title.text)).toEqual(['Updated', 'Pushed']);

    answer = { status: 200 };
    expect((await post('submit', { user: 'U01ALICE', viewId: stacked[1]!.id })).json.outcome).toBe('closed');
    expect((await state()).modal.map((v) => v.view.title.text)).toEqual(['Updated']);
    await post('submit', { user: 'U01ALICE', viewId });
    expect((await state()).modal).toEqual([]);
  });

  it('clears the whole stack on response_action clear', async () => {
    const viewId = await openModal('First');
    answer = { status: 200, body: { response_action: 'push', view: modalView('Pushed') } };
    await post('submit', { user: 'U01ALICE', viewId });
    answer = { status: 200, body: { response_action: 'clear' } };
    const top = (await state()).modal[1]!.id;
    expect((await post('submit', { user: 'U01ALICE', viewId: top })).json.outcome).toBe('cleared');
    expect((await state()).modal).toEqual([]);
  });

  it('sends block_actions from a modal with the values entered so far', async () => {
    const viewId = await openModal('Form');
    const values = { b1: { a1: { type: 'plain_text_input', value: 'typed' } } };
    await post('action', {
      user: 'U01ALICE',
      surface: { kind: 'view', viewId },
      actionId: 'a1',
      blockId: 'b1',
      type: 'plain_text_input',
      value: 'typed',
      values,
    });
    const payload = JSON.parse(new URLSearchParams(received[0]!.body).get('payload')!);
    expect(payload.type).toBe('block_actions');
    expect(payload.actions[0]).toMatchObject({ action_id: 'a1', block_id: 'b1', value: 'typed' });
    expect(payload.view.state.values).toEqual(values);
  });

  it('returns the options the bot offers for a typeahead', async () => {
    const viewId = await openModal('Form');
    answer = { status: 200, body: { options: [{ text: { type: 'plain_text', text: 'One' }, value: '1' }] } };
    const res = await post('suggest', { user: 'U01ALICE', viewId, actionId: 'a1', blockId: 'b1', query: 'on' });
    expect(res.json.options).toEqual([{ text: { type: 'plain_text', text: 'One' }, value: '1' }]);
    const payload = JSON.parse(new URLSearchParams(received[0]!.body).get('payload')!);
    expect(payload).toMatchObject({ type: 'block_suggestion', value: 'on', action_id: 'a1' });
  });

  it('pushes "changed" over SSE when the fake Slack changes', async () => {
    const controller = new AbortController();
    const res = await fetch(`${sandbox.url}/api/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toContain('event: changed');
    fake.addUserMessage({ channel: 'C01OPS', user: 'U01ALICE', text: 'hi' });
    text = decoder.decode((await reader.read()).value);
    expect(text).toContain('event: changed');
    controller.abort();
  });
});

describe('uploaded images', () => {
  it('serves a completed image to the UI at /files/<id>, and nothing else there', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 0, 255]);
    const api = async (method: string, body: Record<string, unknown>) =>
      (await (
        await fetch(`${fake.url}${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, unknown>;
    const upload = async (name: string, bytes: Buffer) => {
      const got = await api('files.getUploadURLExternal', { filename: name, length: bytes.length });
      await fetch(String(got.upload_url), { method: 'POST', body: bytes });
      return String(got.file_id);
    };
    const imageId = await upload('chart.png', png);
    const textId = await upload('notes.txt', Buffer.from('hello'));
    // Not completed yet: not served.
    expect((await fetch(`${sandbox.url}/files/${imageId}`)).status).toBe(404);
    await api('files.completeUploadExternal', { files: [{ id: imageId }, { id: textId }] });
    const served = await fetch(`${sandbox.url}/files/${imageId}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${sandbox.url}/files/${textId}`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/files/FNOSUCHFILE`)).status).toBe(404);
  });
});
