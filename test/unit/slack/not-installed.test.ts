// The answer to a workspace without the app, piece by piece: where the install link points (the configured
// redirect's origin, else the host Slack called, never a host that is not one), which sentence (not
// installed vs. the store could not be read), and what each kind of request gets back.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import {
  answerNotInstalled,
  installUrlOf,
  type NotInstalled,
  notInstalled,
  notInstalledSentence,
} from '../../../src/slack/not-installed.ts';

const request = (headers: Record<string, string>, encrypted = false) =>
  ({ headers, socket: { encrypted } }) as unknown as IncomingMessage;

function thrown(body: Record<string, unknown>, original: Error): NotInstalled {
  try {
    notInstalled(
      Object.assign(new Error('authorize failed'), { code: 'slack_bolt_authorization_error', original }),
      body,
    );
  } catch (err) {
    return err as NotInstalled;
  }
  throw new Error('notInstalled returned');
}

const missing = Object.assign(new Error('none'), { name: 'InstallationNotFoundError' });

function response() {
  const sent: { status?: number; body?: string } = {};
  const res = {
    headersSent: false,
    writeHead(status: number) {
      sent.status = status;
      return res;
    },
    end(body?: string) {
      sent.body = body ?? '';
    },
  };
  return { res: res as unknown as ServerResponse, sent };
}

describe('the install link', () => {
  it('is the redirect URL’s origin when one is configured', () => {
    expect(installUrlOf('https://bot.example.com/slack/oauth_redirect', request({ host: 'evil.test' }))).toBe(
      'https://bot.example.com/slack/install',
    );
  });

  it('else the host Slack called, as the proxy forwards it', () => {
    expect(
      installUrlOf(
        null,
        request({ host: '10.0.0.5:3000', 'x-forwarded-host': 'bot.example.com', 'x-forwarded-proto': 'https' }),
      ),
    ).toBe('https://bot.example.com/slack/install');
    expect(installUrlOf(null, request({ host: '127.0.0.1:3000' }))).toBe('http://127.0.0.1:3000/slack/install');
  });

  it('is left out when the host is not a plain host', () => {
    expect(installUrlOf(null, request({ host: 'a.test/<!channel>' }))).toBeNull();
    expect(notInstalledSentence(true, null)).toContain("from the app's install page");
  });
});

describe('the sentence and the answer', () => {
  it('says "not installed" only when the store says so; a store failure says try again', () => {
    expect(thrown({ command: '/runbook', team_id: 'T0X' }, missing).missing).toBe(true);
    expect(thrown({ command: '/runbook', team_id: 'T0X' }, new Error('connection refused')).missing).toBe(false);
    expect(notInstalledSentence(false, 'https://x/slack/install')).toMatch(/could not look up .* try again/);
  });

  it('answers a command with an ephemeral, a form with a view, a typeahead with no options', async () => {
    const answer = answerNotInstalled(null, createLogger({ level: 'silent' }), undefined, async () => undefined);
    const cases: Array<[Record<string, unknown>, (body: unknown) => void]> = [
      [{ command: '/runbook', team_id: 'T0X' }, (b) => expect(b).toMatchObject({ response_type: 'ephemeral' })],
      [{ type: 'view_submission', team: { id: 'T0X' } }, (b) => expect(b).toMatchObject({ response_action: 'update' })],
      [{ type: 'block_suggestion', team: { id: 'T0X' } }, (b) => expect(b).toEqual({ options: [] })],
    ];
    for (const [body, check] of cases) {
      const { res, sent } = response();
      const handled = await answer({
        error: thrown(body, missing),
        logger: createLogger({ level: 'silent' }) as never,
        request: request({ host: 'bot.example.com' }),
        response: res,
        storedResponse: undefined,
      });
      expect(handled).toBe(true);
      expect(sent.status).toBe(200);
      const parsed = JSON.parse(sent.body!) as Record<string, unknown>;
      check(parsed);
      if (parsed.response_type) expect(String(parsed.text)).toContain('http://bot.example.com/slack/install');
    }
  });

  it('answers a click through its response_url, and nothing else it is given', async () => {
    const posted: Array<[string, unknown]> = [];
    const answer = answerNotInstalled(null, createLogger({ level: 'silent' }), undefined, async (url, body) => {
      posted.push([url, body]);
    });
    const { res, sent } = response();
    await answer({
      error: thrown(
        { type: 'block_actions', team: { id: 'T0X' }, response_url: 'https://hooks.slack.com/actions/T0X/1/abc' },
        missing,
      ),
      logger: createLogger({ level: 'silent' }) as never,
      request: request({ host: 'bot.example.com' }),
      response: res,
      storedResponse: undefined,
    });
    expect([sent.status, sent.body]).toEqual([200, '']);
    expect(posted).toEqual([
      [
        'https://hooks.slack.com/actions/T0X/1/abc',
        expect.objectContaining({ response_type: 'ephemeral', replace_original: false }),
      ],
    ]);
  });

  it('posts to a response_url only when it is Slack’s or the configured Slack API’s origin', async () => {
    const posted: string[] = [];
    const post = async (url: string) => {
      posted.push(url);
    };
    const click = async (answer: ReturnType<typeof answerNotInstalled>, responseUrl: string) => {
      const { res } = response();
      await answer({
        error: thrown({ type: 'block_actions', team: { id: 'T0X' }, response_url: responseUrl }, missing),
        logger: createLogger({ level: 'silent' }) as never,
        request: request({ host: 'bot.example.com' }),
        response: res,
        storedResponse: undefined,
      });
    };
    const logger = createLogger({ level: 'silent' });
    const plain = answerNotInstalled(null, logger, undefined, post);
    for (const url of [
      'https://evil.example/actions/1',
      'http://hooks.slack.com/actions/1',
      'https://hooks.slack.com.evil.example/actions/1',
      'https://user:pw@hooks.slack.com/actions/1',
      'http://127.0.0.1:9/actions/1',
    ])
      await click(plain, url);
    expect(posted).toEqual([]);
    // The sandbox's and the tests' fake Slack: its own origin is Slack here.
    const sandboxed = answerNotInstalled(null, logger, 'http://127.0.0.1:3001/api/', post);
    await click(sandboxed, 'http://127.0.0.1:3001/respond/1');
    await click(sandboxed, 'http://127.0.0.1:3002/respond/1');
    expect(posted).toEqual(['http://127.0.0.1:3001/respond/1']);
  });
});
