// A number field takes decimal notation only: "0x10", "0b11" or "0o17" are not silently read as 16, 3 or 15
// (JavaScript's Number() would), in the form and on a line alike. Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const runsOf = (deployment: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.params.deployment === deployment);

describe('number notation', () => {
  it.each(['0x10', '0b11', '0o17'])('the form refuses replicas "%s" on its field and runs nothing', async (typed) => {
    const alice = h.user();
    await alice.command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const form = await waitFor(() => modalContaining(h, 'field_replicas'), 'the run form');
    const res = await alice.submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: `form-${typed}` } },
      field_replicas: { value: { type: 'plain_text_input', value: typed } },
    });
    expect(res.json).toEqual({ response_action: 'errors', errors: { field_replicas: 'Must be a whole number' } });
    expect(runsOf(`form-${typed}`)).toEqual([]);
  });

  it('a line with --now refuses it too; decimal and exponent notation still work', async () => {
    await h
      .user()
      .command('run "Scale Kubernetes Deployment" namespace=web deployment=line replicas=0x10 --now', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'replicas: Must be a whole number'), 'the refusal');
    await h
      .user()
      .command('run "Scale Kubernetes Deployment" namespace=web deployment=line replicas=1e1 --now', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'Replicas'), 'the confirmation');
  });
});
