// Runs submitted while the Runbook API injects 30% 5xx, 429 storms with Retry-After, slow answers
// and dropped connections, and the fake Slack answers `ratelimited` and 5xx. Every submission must
// end in exactly one of: the run started exactly once, or the person was told clearly that it did
// not start. Never a duplicate run, never a crash. Then the started runs finish (the emulator's
// ManualClock moves on) while both storms go on: every one must get its result card and exactly
// one notice (thread reply or digest line) naming it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { countReports, findRunMessages, whileProgressing } from '../support/process-harness.ts';

const SCALE = Math.max(0.1, Number(process.env.TEST_FAULTS_SCALE ?? 1));
const SUBMISSIONS = Math.max(4, Math.round(20 * SCALE));
const RUNBOOK = 'Scale Kubernetes Deployment';
/**
 * How long nothing may change (no card, notice or finished watch) before a wait gives up: past the
 * watcher's 15 s grace for a card startRun could not post, and short of the 3 min after which it takes
 * over a claimant it thinks dead.
 */
const STALL_MS = 60_000;

let h: Harness;
beforeAll(async () => {
  // The per-person run limit is not what this suite is about: let every submission reach the API.
  // Short watcher intervals so the reporting phase takes seconds, not minutes.
  h = await startHarness({
    env: {
      RUNBOOK_API_MAX_RETRIES: '2',
      LOG_LEVEL: 'warn',
      RUN_RATE_LIMIT_PER_MINUTE: '1000',
      WATCH_FIRST_CHECK_MS: '200',
      WATCH_MAX_CHECK_MS: '500',
      WATCH_TICK_MS: '50',
      WATCH_REQUESTS_PER_SECOND: '200',
      WATCH_SLACK_POST_INTERVAL_MS: '20',
      WATCH_SLACK_UPDATE_INTERVAL_MS: '20',
    },
  });
});
afterAll(async () => {
  await h.stop();
});

const marker = (i: number) => `faults-${i}`;
// Every third run fails (the emulator fails a run when an input is exactly "FAIL"), so the cards
// must say the right word, not just any result.
const deployment = (i: number) => (i % 3 === 2 ? 'FAIL' : 'api');

function values(i: number) {
  return {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: {
      [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
    },
    field_namespace: { value: { type: 'plain_text_input', value: marker(i) } },
    field_deployment: { value: { type: 'plain_text_input', value: deployment(i) } },
    field_replicas: { value: { type: 'number_input', value: '2' } },
  };
}

function executionsFor(i: number) {
  return [...h.emulator.state.executions.byId.values()].filter((e) => e.params.namespace === marker(i));
}

/** Top-level messages whose blocks name the execution (its running card, and any second card). */
function topLevelMessagesNaming(executionId: string) {
  return Object.values(h.fake.state.messages)
    .flat()
    .filter((m) => !(m.thread_ts && m.thread_ts !== m.ts) && JSON.stringify(m.blocks ?? []).includes(executionId));
}

/** Every place a person can read a "did not start" notice. */
function notStartedNotices(): number {
  const texts = [
    ...Object.values(h.fake.state.messages)
      .flat()
      .map((m) => m.text),
    ...h.fake.state.ephemerals.map((e) => e.text),
  ];
  return texts.filter((t) => t.includes(`${RUNBOOK} did not start`)).length;
}

it('never starts a run twice and tells the person about every run that did not start', async () => {
  // Forms are opened before the storm; the submissions (the runs) happen inside it.
  const views: string[] = [];
  for (let i = 0; i < SUBMISSIONS; i++) {
    const before = h.user().topModal()?.id;
    await h.user().command(`run "${RUNBOOK}"`, 'C01OPS');
    const modal = await waitFor(() => {
      const m = modalContaining(h, 'meta_proxy');
      return m && m.id !== before ? m : undefined;
    }, 'run modal');
    views.push(modal.id);
  }

  h.emulator.setFaults({
    errorRate: 0.3,
    rateLimitRate: 0.15,
    retryAfterSeconds: 1,
    dropRate: 0.1,
    latencyMs: 50,
    latencyJitterMs: 400,
    htmlErrors: true,
  });
  h.fake.setFaults({
    ratelimitedRate: 0.15,
    serverErrorRate: 0.1,
    retryAfterSeconds: 1,
    methods: ['chat.postMessage', 'chat.postEphemeral', 'views.update', 'conversations.open'],
  });

  const answers = await Promise.all(views.map((id, i) => h.user().submit(id, values(i))));
  for (const a of answers) expect(a.status).toBeLessThan(500);

  // Each submission settles: started (a running message with its id) or refused (a notice).
  const outcome = () => {
    let started = 0;
    let refused = 0;
    for (let i = 0; i < SUBMISSIONS; i++) {
      const runs = executionsFor(i);
      expect(runs.length, `submission ${i} started ${runs.length} runs`).toBeLessThanOrEqual(1);
      if (runs.length === 1) started++;
      else refused++;
    }
    return { started, refused };
  };
  const snapshot = () => {
    const { started, refused } = outcome();
    const running = Object.values(h.fake.state.messages)
      .flat()
      .filter((m) => m.text.includes(`${RUNBOOK} is running`)).length;
    return { started, refused, running, notices: notStartedNotices() };
  };
  // Waited for while cards and notices keep appearing: under load they come later, not fewer. A card
  // held back (its post given up on, its claim never handed on) stalls this and fails below.
  const { value: settled } = await whileProgressing(
    snapshot,
    (s) => s.running >= s.started && s.notices >= s.refused,
    STALL_MS,
  );
  // Each submission settled: started (its running message is up) or refused (the person was told).
  expect(settled.notices, JSON.stringify(settled)).toBe(settled.refused);
  expect(settled.running, JSON.stringify(settled)).toBe(settled.started);
  expect(settled.started + settled.refused).toBe(SUBMISSIONS);
  // The storm really happened.
  expect(h.emulator.state.requests.snapshot().total).toBeGreaterThan(0);

  // ---- reporting under faults: the started runs finish while Slack edits and posts keep failing.
  const started = Array.from({ length: SUBMISSIONS }, (_, i) => executionsFor(i)[0]).filter((e) => e !== undefined);
  const runs = findRunMessages(
    h.fake,
    started.map((e) => e.id),
  );
  expect(runs.length, 'every started run has its running message').toBe(started.length);
  // Lower than the storm: the pacer gives a reply 5 attempts, and a claimed reply whose 5 attempts
  // all fail is dropped by design (lost beats doubled); at 20% per attempt that is 0.03% per reply.
  h.fake.setFaults({
    ratelimitedRate: 0.1,
    serverErrorRate: 0.1,
    retryAfterSeconds: 1,
    methods: ['chat.update', 'chat.postMessage'],
  });
  const callsBefore = h.fake.state.calls.length;
  // Runs of this runbook take 3–15 s of emulator time; they end lazily on the next API read.
  h.emulator.advance(60_000);
  const store = h.runtime.store;
  const reported = await whileProgressing(
    () => store.watches.countByState(),
    (counts) => counts.active === 0,
    STALL_MS,
  );
  if (reported.stalled) throw new Error(`watches still active: ${JSON.stringify(reported.value)}`);
  const faultedSlackCalls = h.fake.state.calls
    .slice(callsBefore)
    .filter((c) => c.status === 429 || c.status >= 500).length;
  expect(faultedSlackCalls, 'Slack faults hit the reporting').toBeGreaterThan(0);

  const reports = countReports(h.fake, runs);
  const problems: string[] = [];
  for (const run of runs) {
    const execution = h.emulator.state.executions.byId.get(run.executionId)!;
    const word = execution.status === 'EXECUTION_STATUS_FAILED' ? 'failed' : 'succeeded';
    const card = h.fake.state.messages[run.channel]!.find((m) => m.ts === run.ts)!;
    const report = reports.get(run.executionId)!;
    if (card.text !== `${RUNBOOK} ${word}`) {
      const cards = topLevelMessagesNaming(run.executionId).map((m) => `${m.ts} "${m.text}"`);
      problems.push(`${run.executionId}: card ${run.ts} says "${card.text}", not ${word}; cards: ${cards.join(', ')}`);
    }
    if (report.resultEdits < 1) problems.push(`${run.executionId}: running message never became a result`);
    if (report.replies !== 1) problems.push(`${run.executionId}: ${report.replies} notices`);
  }
  expect(problems).toEqual([]);

  h.emulator.setFaults({ errorRate: 0, rateLimitRate: 0, dropRate: 0, latencyMs: 0, latencyJitterMs: 0 });
  h.fake.setFaults({});
  const help = await h.user().command('help', 'C01OPS');
  expect(help.status).toBe(200);
  await waitFor(() => ephemeralContaining(h.fake, '/runbook list'), 'help after the storm');
});
