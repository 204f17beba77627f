// What the approver-per-installation tests (groups, users) read the same way: what was shown to a person
// (ephemerals and response_url posts), a Workflow step refused as it needs approval, a decision's updates.
import { expect } from 'vitest';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { writePolicyFile } from './bot-harness.ts';
import { addZed, DRAIN, type OAuthHarness, startOAuthHarness, until } from './oauth-harness.ts';
import { type Person, personIn, textOf } from './tenant-flows.ts';
import { INSTALLED } from './three-installations.ts';

/** A harness with this policy, Zed added, `seed` applied, and A, B and G installed (each connected). */
export async function startThreeWithPolicy(policy: string, seed?: (h: OAuthHarness) => void): Promise<OAuthHarness> {
  const h = await startOAuthHarness({ env: { POLICY_FILE: writePolicyFile(policy) } });
  addZed(h);
  seed?.(h);
  for (const inst of Object.values(INSTALLED)) expect((await h.install(inst.installation)).status).toBe(200);
  return h;
}

/** From now on: the texts shown to a person (each ephemeral, each response_url post's body). */
export function shownFromNow(h: OAuthHarness): (userId: string) => string[] {
  const [ephemerals, posts] = [h.fake.state.ephemerals.length, h.fake.state.responseUrlPosts.length];
  return (userId) => [
    ...h.fake.state.ephemerals
      .slice(ephemerals)
      .filter((e) => e.user === userId)
      .map(textOf),
    ...h.fake.state.responseUrlPosts
      .slice(posts)
      .filter((p) => p.user === userId)
      .map((p) => JSON.stringify(p.body)),
  ];
}

/** Everything ever shown to these people, as one text. */
export function shownToAll(h: OAuthHarness, ids: readonly string[]): string {
  const people = new Set(ids);
  return [
    ...h.fake.state.ephemerals.filter((e) => people.has(e.user)).map(textOf),
    ...h.fake.state.responseUrlPosts.filter((p) => people.has(p.user)).map((p) => JSON.stringify(p.body)),
  ].join('\n');
}

/** `who` runs the Workflow step for DRAIN (which needs approval): the error it ends with. */
export async function refusedDrainStep(h: OAuthHarness, who: Person): Promise<string> {
  const step = await personIn(h, who).runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
    runbook: DRAIN,
    inputs: JSON.stringify({ node_name: 'node-step' }),
    channel: 'C01OPS',
    wait_for_completion: true,
    invoking_user: who.id,
  });
  const id = step.started.execution.id;
  const ended = await until(
    async () => (h.fake.state.functionExecutions[id]?.state === 'failed' ? h.fake.state.functionExecutions[id] : null),
    'the step to be refused',
  );
  return ended.error ?? '';
}

/** The `chat.update` calls with `installation`'s token since call `since`, once the request's and the copy's are. */
export function decisionUpdates(h: OAuthHarness, installation: string, since: number) {
  return until(async () => {
    const found = h.fake.state.calls
      .slice(since)
      .filter((c) => c.method === 'chat.update' && c.installation === installation);
    return found.length >= 2 ? found : null;
  }, "the request's and the copy's updates");
}
