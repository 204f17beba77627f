// A runbook a person may not `view` does not exist for them: typeahead, pick lists, "did you mean"
// suggestions and refusals never name it, on any surface (tested through the real Bolt pipeline with a
// policy that hides every "Restart *" runbook from Carol).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const POLICY = `
rules:
  - name: restarts are for the on-call team
    effect: deny
    actions: [view]
    users: [U03CAROL]
    runbooks: { names: ["Restart *"] }
`;

let h: Harness;
let hidden: Array<{ id: string; name: string }>;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hidden-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml') } });
  hidden = (await h.runtime.deps.catalog.all()).filter((r) => r.name.startsWith('Restart '));
  expect(hidden.length).toBeGreaterThan(2);
});
afterAll(async () => {
  await h.stop();
});

const CAROL = 'U03CAROL';

/** Everything Carol was shown since `since` ephemerals (messages to her) plus her top modal. */
function shownToCarol(sinceEphemerals: number): string {
  const ephemerals = h.fake.state.ephemerals.slice(sinceEphemerals).filter((e) => e.user === CAROL);
  return JSON.stringify([ephemerals.map((e) => [e.text, e.blocks]), h.user(CAROL).topModal()?.view ?? null]);
}

function expectNoHiddenName(text: string) {
  for (const runbook of hidden) {
    expect(text).not.toContain(runbook.name);
    expect(text).not.toContain(runbook.id);
  }
}

async function commandShows(text: string, needle: string | RegExp): Promise<string> {
  const since = h.fake.state.ephemerals.length;
  const modalBefore = h.user(CAROL).topModal()?.id ?? null;
  await h.user(CAROL).command(text, 'C01OPS');
  return waitFor(() => {
    const top = h.user(CAROL).topModal();
    const shown = shownToCarol(since);
    const fresh = h.fake.state.ephemerals.slice(since).some((e) => e.user === CAROL) || (top && top.id !== modalBefore);
    if (!fresh || shown.includes('Loading')) return undefined;
    return (typeof needle === 'string' ? shown.includes(needle) : needle.test(shown)) ? shown : undefined;
  }, `the answer to ${text}`);
}

describe('hidden runbooks are never named to who may not view them', () => {
  it('Alice (no rule) does see them: the test would notice a name', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user('U01ALICE').command('show restart', 'C01OPS');
    const shown = await waitFor(
      () => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U01ALICE'),
      'pick list for Alice',
    );
    expect(JSON.stringify(shown.blocks)).toContain(hidden[0]!.name);
  });

  it('typeahead offers none of them', async () => {
    await h.user(CAROL).command('run', 'C01OPS');
    const modal = await waitFor(() => {
      const top = h.user(CAROL).topModal();
      return top && JSON.stringify(top.view).includes(ACTIONS.runbookPicker) ? top : undefined;
    }, 'the picker');
    for (const query of ['restart', 'Restart Kubernetes', 'kubernetes', '']) {
      const res = await h.user(CAROL).suggest(modal.id, ACTIONS.runbookPicker, BLOCKS.runbookPicker, query);
      const options = (res.json as { options: Array<{ text: { text: string } }> }).options;
      if (query === 'kubernetes') expect(options.length).toBeGreaterThan(0);
      expectNoHiddenName(JSON.stringify(options));
    }
  });

  it('a pick list of several matches leaves them out', async () => {
    // "kubernetes" matches Restart Kubernetes Deployment and others Carol may see.
    const shown = await commandShows('show kubernetes', 'Which one');
    expectNoHiddenName(shown);
  });

  it('"did you mean" never suggests them', async () => {
    const shown = await commandShows(
      'show restrt kubernetes deploymnt',
      /No runbook|closest|Did you mean|did you mean/i,
    );
    expectNoHiddenName(shown);
  });

  it('naming one exactly answers like an unknown name, on every subcommand that takes a runbook', async () => {
    for (const sub of ['show', 'run', 'schedule', 'schedules', 'executions', 'subscribe']) {
      const shown = await commandShows(`${sub} "${hidden[0]!.name}"`, /runbook|Runbook/);
      expectNoHiddenName(shown.replaceAll(JSON.stringify(hidden[0]!.name).slice(1, -1), ''));
    }
  });

  it('a refusal for a hidden runbook reached by id (a stale button) does not name it', async () => {
    for (const [actionId, expectText] of [
      [ACTIONS.runbookRun, 'You may not'],
      [ACTIONS.runbookSchedule, 'You may not'],
      [ACTIONS.runbookDetails, 'You may not'],
    ] as const) {
      const since = h.fake.state.ephemerals.length;
      const before = h.user(CAROL).topModal()?.id ?? null;
      const message = {
        type: 'message',
        channel: 'C01OPS',
        ts: `${Date.now() / 1000}`,
        text: '',
        blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: actionId, value: hidden[0]!.id }] }],
      } as unknown as FakeMessage;
      await h.user(CAROL).act({ kind: 'message', message }, actionId);
      const shown = await waitFor(() => {
        const top = h.user(CAROL).topModal();
        const text = shownToCarol(since);
        const fresh = h.fake.state.ephemerals.slice(since).some((e) => e.user === CAROL) || (top && top.id !== before);
        return fresh && text.includes(expectText) && !text.includes('Loading') ? text : undefined;
      }, `the refusal of ${actionId}`);
      expect(shown).toContain('that runbook');
      expectNoHiddenName(shown);
    }
  });

  it("the channel's subscriptions list leaves out subscriptions to them", async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user('U01ALICE').command(`subscribe "${hidden[0]!.name}"`, 'C02DEPLOYS');
    await waitFor(() => h.fake.state.ephemerals.slice(since).find((e) => e.user === 'U01ALICE'), 'subscribed');
    const shown = await (async () => {
      const mark = h.fake.state.ephemerals.length;
      await h.user(CAROL).command('subscriptions', 'C02DEPLOYS');
      return waitFor(() => h.fake.state.ephemerals.slice(mark).find((e) => e.user === CAROL), 'the list');
    })();
    expectNoHiddenName(JSON.stringify([shown.text, shown.blocks]));
    expect(await h.runtime.store.subscriptions.listForChannel('C02DEPLOYS')).toHaveLength(1);
  });

  it('a crafted pick of a hidden runbook id does not turn it into its name', async () => {
    for (const next of ['executions', 'schedules']) {
      const since = h.fake.state.ephemerals.length;
      const actionId = `${ACTIONS.pickRunbook}_0`;
      const message = {
        type: 'message',
        channel: 'C01OPS',
        ts: `${Date.now() / 1000}`,
        text: '',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: actionId, value: JSON.stringify({ id: hidden[0]!.id, next }) }],
          },
        ],
      } as unknown as FakeMessage;
      await h.user(CAROL).act({ kind: 'message', message }, actionId);
      const shown = await waitFor(
        () => h.fake.state.ephemerals.slice(since).find((e) => e.user === CAROL),
        `the answer to a ${next} pick`,
      );
      expect(JSON.stringify([shown.text, shown.blocks])).not.toContain(hidden[0]!.name);
    }
  });
});
