// The page at the end of an install that did not finish: a cancel in Slack is a person's choice (200),
// a forged, expired or reused link a client error (400), and only our own failure (the store down) a 500,
// so monitoring that counts 5xx is not tripped by people pressing Cancel. Each page says why in one
// sentence and links back to the install path; the error's own text never reaches the page.
import { AuthorizationError, type CodedError, InvalidStateError, MissingStateError } from '@slack/oauth';
import { describe, expect, it } from 'vitest';
import { installerReceiverOptions } from '../../../src/slack/installs.ts';

function answer(error: CodedError): { status: number; html: string } {
  const options = installerReceiverOptions(
    {
      clientId: 'id',
      clientSecret: 'secret',
      stateSecret: 'state',
      redirectUri: null,
      authorizationUrl: null,
      installationStore: { storeInstallation: async () => {}, fetchInstallation: async () => ({}) as never },
      stateStore: { generateStateParam: async () => 's', verifyStateParam: async () => ({ scopes: [] }) },
    },
    'http://127.0.0.1:1/api/',
  );
  let status = 0;
  let html = '';
  const res = {
    writeHead: (code: number) => {
      status = code;
    },
    end: (body: string) => {
      html = body;
    },
  };
  options.installerOptions!.callbackOptions!.failure!(error, { scopes: [] }, {} as never, res as never);
  return { status, html };
}

describe('an install that did not finish', () => {
  it('answers 200 with a clear sentence and a link to try again when the person cancelled in Slack', () => {
    const page = answer(new AuthorizationError('User cancelled the OAuth installation flow!'));
    expect(page.status).toBe(200);
    expect(page.html).toContain('The install was cancelled in Slack.');
    expect(page.html).toContain('href="/slack/install"');
  });

  it('answers 400 for a forged, expired or missing state (a client error)', () => {
    for (const error of [new InvalidStateError('forged'), new MissingStateError('missing')]) {
      const page = answer(error);
      expect(page.status).toBe(400);
      expect(page.html).toContain('This install link expired, was already used, or was opened in another browser.');
      expect(page.html).toContain('href="/slack/install"');
    }
  });

  it('answers 400 when Slack refuses the code, and 500 only for our own failure (the store down)', () => {
    const refused = Object.assign(new Error('An API error occurred: invalid_code'), {
      code: 'slack_webapi_platform_error',
    });
    expect(answer(refused).status).toBe(400);
    // The installer hands on what the installation store threw (code filled in as unknown).
    const down = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'), {
      code: 'slack_oauth_unknown_error',
    });
    const page = answer(down);
    expect(page.status).toBe(500);
    expect(page.html).toContain('Slack did not complete the install.');
    expect(page.html).toContain('href="/slack/install"');
    expect(page.html).not.toContain('ECONNREFUSED');
    expect(page.html).not.toContain('hunter2');
  });
});
