// A lost answer: Slack stores the running card, but the answer to chat.postMessage never arrives (the
// connection drops). The Web API client's own retries would post it again (two cards, one stuck at
// "running" for good); the bot must read the channel back instead and use the card that arrived.
// One card per execution, always, and it becomes the result.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { executionMarked, openScaleForm, scaleFormValues } from '../support/run-form.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { LOG_LEVEL: 'warn', WATCH_FIRST_CHECK_MS: '200', WATCH_MAX_CHECK_MS: '500', WATCH_TICK_MS: '50' },
  });
});
afterAll(async () => {
  await h.stop();
});

function cardsNaming(executionId: string) {
  return (h.fake.state.messages.C02DEPLOYS ?? []).filter(
    (m) => !(m.thread_ts && m.thread_ts !== m.ts) && JSON.stringify(m.blocks ?? []).includes(`\`${executionId}\``),
  );
}

it('posts one running card when the answer to its chat.postMessage is lost, and turns it into the result', async () => {
  const modalId = await openScaleForm(h);
  h.fake.setFaults({ lostAnswerNext: 1, methods: ['chat.postMessage'] });
  await h.user().submit(modalId, scaleFormValues('lost-answer'));
  const execution = await executionMarked(h, 'lost-answer');
  await waitFor(() => cardsNaming(execution.id).length > 0, 'running card');
  // The answer was lost: the fault fired on the card's post.
  const lost = h.fake.state.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C02DEPLOYS');
  expect(lost.length).toBeGreaterThanOrEqual(1);
  // Time for any retry (the client's or the watcher's) to have happened.
  await new Promise((r) => setTimeout(r, 2_000));
  expect(cardsNaming(execution.id)).toHaveLength(1);
  // The bot knows which message it is: the run ends and that very card becomes the result.
  const [card] = cardsNaming(execution.id);
  h.emulator.advance(60_000);
  await waitFor(
    () => {
      const now = (h.fake.state.messages.C02DEPLOYS ?? []).find((m) => m.ts === card!.ts);
      return now && / (succeeded|failed)$/.test(now.text);
    },
    'the card becomes the result',
    20_000,
  );
  expect(cardsNaming(execution.id)).toHaveLength(1);
});
