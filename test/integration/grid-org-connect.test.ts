// Enterprise Grid, end to end through the real Bolt pipeline: an org-wide install is connected from App Home
// by an admin of one workspace of the org, and a person of the org's second workspace then runs a runbook
// on that same installation and tenant, its card edited into the result with the org's token. An admin of
// one workspace cannot connect, replace or disconnect the Runbook API of another installation: another
// organisation's (where the policy lets external users act), nor a sibling workspace of the same org that
// installed the app on its own (Slack counts its people as members there, but not as its admins).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../src/sandbox/fake-slack-state.ts';
import type { Surface } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from '../support/bot-harness.ts';
import {
  connectFromHome,
  type OAuthHarness,
  openConnectForm,
  resultCardOf,
  startOAuthHarness,
  until,
} from '../support/oauth-harness.ts';

const KEY_G = 'tenant-grid-key-0123456789';
const KEY_X = 'tenant-x-key-0123456789';
const SCALE = 'Scale Kubernetes Deployment';
const GRID_ONLY = 'Find Unattached EBS Volumes';
const ORG = { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true };
const TENANTS = {
  [KEY_G]: { name: 'grid', runbooks: [SCALE, GRID_ONLY] },
  [KEY_X]: { name: 'x', runbooks: [SCALE] },
};

/** Eva (Acme EU) is an admin of her workspace. */
function makeEvaAdmin(h: OAuthHarness): void {
  const eva = h.fake.state.users.find((u) => u.id === 'U21EVA')!;
  eva.is_admin = true;
}

const textOf = (e: { text?: string | null; blocks?: unknown }) => `${e.text ?? ''}${JSON.stringify(e.blocks ?? [])}`;

/** Eva was told (by DM, with `installation`'s token: a click in Home has no channel) that she may not. */
function toldPrivately(h: OAuthHarness, since: number, installation: string) {
  return until(
    async () =>
      h.fake.state.calls
        .slice(since)
        .find(
          (c) =>
            (c.method === 'chat.postMessage' || c.method === 'chat.postEphemeral') &&
            c.installation === installation &&
            JSON.stringify(c.args).includes('Only a workspace admin or owner'),
        ),
    'the refusal of Disconnect',
  );
}

/** The Replace key form opened in `installation` was turned into the refusal that says `sentence`. */
function formRefused(h: OAuthHarness, installation: string, sentence: string) {
  return until(
    async () =>
      h.fake.state.calls.find(
        (c) =>
          c.method === 'views.update' && c.installation === installation && JSON.stringify(c.args).includes(sentence),
      ),
    'the refusal of the form',
  );
}

/** A home view with the connection's buttons, as a forged click would carry them. */
function forgedHome(): Surface {
  const view = {
    id: 'V0FORGEDHOME',
    type: 'home',
    user_id: 'U21EVA',
    view: {
      type: 'home',
      blocks: [
        {
          type: 'actions',
          block_id: 'home_connect',
          elements: [
            {
              type: 'button',
              action_id: ACTIONS.connectOpen,
              value: 'replace',
              text: { type: 'plain_text', text: 'Replace key' },
            },
            {
              type: 'button',
              action_id: ACTIONS.connectRemove,
              value: 'remove',
              text: { type: 'plain_text', text: 'Disconnect' },
            },
          ],
        },
      ],
    },
    state: { values: {} },
    hash: 'h-forged',
    root_view_id: null,
    previous_view_id: null,
    external_id: '',
    closed: false,
  } as unknown as FakeView;
  return { kind: 'view', view };
}

describe('an org-wide install: connected in one workspace, used from another', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthHarness({ tenants: TENANTS, env: { POLICY_FILE: writePolicyFile('externalUsers: allow\n') } });
    makeEvaAdmin(h);
    expect((await h.install('E0ACMEGRID', { connect: false })).status).toBe(200);
    expect((await h.install('T0SECOND')).status).toBe(200);
  }, 30_000);
  afterAll(() => h?.stop());

  it('an admin of Acme EU connects the org from App Home; Acme US runs on the same installation and tenant', async () => {
    await connectFromHome(h, h.user('U21EVA', 'T0GRIDA', ORG), KEY_G);
    await until(
      async () => (await h.runtime.tenants!.connections.status('E0ACMEGRID'))?.connectedBy === 'U21EVA',
      'connected',
    );

    // Uma, in the org's other workspace: the org's catalog, a run in the org's tenant.
    const uma = h.user('U22UMA', 'T0GRIDB', ORG);
    const since = h.fake.state.ephemerals.length;
    await uma.command('list', 'C01OPS');
    const list = await until(
      async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U22UMA' && textOf(e).includes(SCALE)),
      'the list',
    );
    expect(textOf(list)).toContain(GRID_ONLY);

    const confirmFrom = h.fake.state.ephemerals.length;
    await uma.command(`run "${SCALE}" namespace=prod deployment=grid-us replicas=2 --now`, 'C01OPS');
    const confirm = await until(
      async () =>
        h.fake.state.ephemerals
          .slice(confirmFrom)
          .find((e) => e.user === 'U22UMA' && textOf(e).includes(ACTIONS.confirmRun)),
      'the confirmation',
    );
    await uma.act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
    const grid = h.emulator.tenant(KEY_G)!;
    const run = await until(
      async () => [...grid.executions.byId.values()].find((e) => String(e.received.params ?? '').includes('grid-us')),
      'the run in the org tenant',
    );
    expect(
      [...h.emulator.state.executions.byId.values()].some((e) => String(e.received.params).includes('grid-us')),
    ).toBe(false);
    h.clock.advance(60 * 60_000);
    expect((await resultCardOf(h, run.id)).installation).toBe('E0ACMEGRID');
  });

  it("that admin cannot connect, replace or disconnect another organisation's installation", async () => {
    const before = await h.runtime.tenants!.connections.status('T0SECOND');
    expect(before).not.toBeNull();
    // Eva acting in the second workspace (a Slack Connect channel; the policy lets external users act).
    const eva = h.user('U21EVA', 'T0SECOND');
    await eva.openHome();
    const homeCall = await until(
      async () =>
        h.fake.state.calls.find(
          (c) => c.method === 'views.publish' && c.installation === 'T0SECOND' && c.args.user_id === 'U21EVA',
        ),
      'her home there',
    );
    // No buttons to manage it.
    expect(JSON.stringify(homeCall.args)).not.toContain(ACTIONS.connectRemove);

    // A forged Disconnect and Replace key.
    const since = h.fake.state.calls.length;
    await eva.act(forgedHome(), ACTIONS.connectRemove);
    await eva.act(forgedHome(), ACTIONS.connectOpen);
    const refusal = await formRefused(h, 'T0SECOND', 'Only a workspace admin or owner');
    expect(refusal).toBeDefined();
    await toldPrivately(h, since, 'T0SECOND');

    // Her own org's connect form, submitted as from the second workspace with another key.
    const own = h.user('U21EVA', 'T0GRIDA', ORG);
    const form = await openConnectForm(h, own);
    await eva.submit(form.id, {
      [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: KEY_X } },
    });
    await until(
      async () =>
        (await h.runtime.store.audit.recent(100)).filter(
          (e) => e.userId === 'U21EVA' && e.target === 'T0SECOND' && e.outcome === 'denied',
        ).length >= 3,
      'three refusals audited',
    );
    expect(await h.runtime.tenants!.connections.status('T0SECOND')).toEqual(before);
    expect(h.emulator.tenant(KEY_X)!.requests.snapshot().total).toBe(0);
  });
});

describe('two workspaces of one org, each installed on its own', () => {
  let h: OAuthHarness;
  beforeAll(async () => {
    h = await startOAuthHarness({ tenants: TENANTS });
    makeEvaAdmin(h);
    expect((await h.install('T0GRIDB')).status).toBe(200);
  }, 30_000);
  afterAll(() => h?.stop());

  it("an admin of Acme EU cannot disconnect or replace Acme US's Runbook API", async () => {
    const before = await h.runtime.tenants!.connections.status('T0GRIDB');
    expect(before?.baseUrl).toBe(h.emulator.url);
    // Slack counts her a member there (same org): her requests are served, but she is not its admin.
    const eva = h.user('U21EVA', 'T0GRIDB', { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: false });
    const since = h.fake.state.calls.length;
    await eva.act(forgedHome(), ACTIONS.connectRemove);
    await toldPrivately(h, since, 'T0GRIDB');
    await eva.act(forgedHome(), ACTIONS.connectOpen);
    await formRefused(h, 'T0GRIDB', 'Only a workspace admin');
    expect(await h.runtime.tenants!.connections.status('T0GRIDB')).toEqual(before);
  });
});
