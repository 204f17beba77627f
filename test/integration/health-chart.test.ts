// The health chart through the real Bolt pipeline against the emulator's month of history and the fake
// Slack Web API: the PNG is uploaded with the current upload flow as the bot's own file, the image block
// names that file through `slack_file`, the numbers travel with it, it goes to the person's DM unless
// they say --here, a channel the bot cannot post in falls back to the DM, and a failed upload still
// delivers the numbers with one sentence.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHART_PIXELS } from '../../src/health/chart.ts';
import type { FakeMessage } from '../../src/sandbox/fake-slack-api.ts';
import { CHART_MISSING } from '../../src/slack/health/health-chart.ts';
import { CHART_TO_DM } from '../../src/slack/health/health-view.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { type Harness, waitFor } from '../support/bot-harness.ts';
import { startHealthHarness } from '../support/health-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHealthHarness();
});
afterAll(async () => {
  await h.stop();
});
beforeEach(() => {
  h.fake.setFaults({});
});

const IAM = 'Rotate IAM Access Keys';

interface ImageBlock {
  type: 'image';
  slack_file?: { id?: string };
  alt_text?: string;
  title?: { text: string };
}

function botMessages(channel: string): FakeMessage[] {
  return (h.fake.state.messages[channel] ?? []).filter((m) => m.bot_id);
}

/** The person's DM with the bot, once the bot opened it (the chart follows the private answer). */
function dmOf(user: string): Promise<string> {
  return waitFor(() => h.fake.state.ims[user], `the DM with ${user}`);
}

/** The chart message posted after `before` messages in `channel`. */
async function chartMessage(channel: string, before: number): Promise<FakeMessage> {
  return waitFor(
    () =>
      botMessages(channel)
        .slice(before)
        .find((m) => JSON.stringify(m.blocks ?? []).includes('health over the last')),
    `the chart message in ${channel}`,
  );
}

function imageOf(message: FakeMessage): ImageBlock | undefined {
  return (message.blocks as ImageBlock[] | undefined)?.find((b) => b.type === 'image');
}

async function pngSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return { width: image.width, height: image.height };
}

async function ephemeralTo(user: string, before: number, needle: string) {
  return waitFor(
    () =>
      h.fake.state.ephemerals
        .slice(before)
        .find((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(needle)),
    `a private answer containing ${needle}`,
  );
}

describe('/runbook health <runbook>: the chart', () => {
  it('answers the numbers privately and sends the chart to the DM, as an uploaded PNG in an image block', async () => {
    const ephemerals = h.fake.state.ephemerals.length;
    const inOps = botMessages('C01OPS').length;
    const files = Object.keys(h.fake.state.files).length;
    await h.user('U01ALICE').command(`health "${IAM}"`, 'C01OPS');
    const answer = await ephemeralTo('U01ALICE', ephemerals, 'health over the last 30 days');
    expect(JSON.stringify(answer.blocks)).toContain('on its way to your direct messages');
    expect(JSON.stringify(answer.blocks)).toContain(JSON.stringify(CHART_TO_DM).slice(1, -1));

    const dm = await dmOf('U01ALICE');
    const message = await chartMessage(dm, 0);
    const image = imageOf(message);
    const fileId = image?.slack_file?.id;
    expect(fileId).toMatch(/^F[A-Z0-9]{8,}$/);
    // The file is new, a PNG of the chart's size, uploaded by the bot and shared in no message itself.
    expect(Object.keys(h.fake.state.files).length).toBe(files + 1);
    const file = h.fake.state.files[fileId!]!;
    expect(file).toMatchObject({ mimetype: 'image/png', user: h.fake.state.botUserId, shared: true });
    expect(file.name).toBe('rotate-iam-access-keys-health.png');
    expect(await pngSize(h.fake.state.fileBytes[fileId!]!)).toEqual(CHART_PIXELS);
    const sharedAsFile = Object.values(h.fake.state.messages)
      .flat()
      .some((m) => m.files?.some((f) => f.id === fileId));
    expect(sharedAsFile).toBe(false);
    // The upload went through the current flow, in order.
    const uploadCalls = h.fake.state.calls
      .map((c) => c.method)
      .filter((m) => m.startsWith('files.') || m === 'chat.postMessage');
    expect(uploadCalls.slice(-3)).toEqual([
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
      'chat.postMessage',
    ]);
    // The numbers beside it, as text: the same as the private answer's.
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('Success rate');
    expect(text).toContain('Median duration');
    expect(message.text).toBe(answer.text);
    // What the chart is drawn from is what the emulator holds: its totals and its busiest day.
    const from = h.clock.now() - 30 * 24 * 60 * 60_000;
    const runs = [...h.emulator.state.executions.byId.values()].filter(
      (e) => e.workflowName === IAM && e.startMs >= from,
    );
    const succeeded = runs.filter((e) => e.status === 'EXECUTION_STATUS_SUCCEEDED').length;
    const failed = runs.filter((e) => e.status === 'EXECUTION_STATUS_FAILED').length;
    const perDay = new Map<string, number>();
    for (const e of runs) {
      const d = new Date(e.startMs).toISOString().slice(0, 10);
      perDay.set(d, (perDay.get(d) ?? 0) + 1);
    }
    const busiest = Math.max(...perDay.values());
    expect(image?.alt_text).toMatch(/^Bar chart of Rotate IAM Access Keys runs per day/);
    expect(image?.alt_text).toContain(`(${succeeded} succeeded, ${failed} failed)`);
    expect(image?.alt_text).toMatch(new RegExp(`busiest day (\\d{4}-\\d{2}-\\d{2}) with ${busiest} runs`));
    const named = /busiest day (\d{4}-\d{2}-\d{2})/.exec(image?.alt_text ?? '')?.[1];
    expect(perDay.get(named!)).toBe(busiest);
    expect(image?.title?.text).toBe('Rotate IAM Access Keys, last 30 days');
    expect(checkBlocks(message.blocks ?? [], 'message')).toEqual([]);
    // Private stays private: nothing was posted in the channel.
    expect(botMessages('C01OPS').length).toBe(inOps);
  });

  it('--here posts the numbers and the chart in the channel, and sends nothing privately', async () => {
    const ephemerals = h.fake.state.ephemerals.length;
    const dm = await dmOf('U01ALICE');
    const inDm = botMessages(dm).length;
    const inOps = botMessages('C01OPS').length;
    await h.user('U01ALICE').command(`health "${IAM}" --here`, 'C01OPS');
    const message = await chartMessage('C01OPS', inOps);
    const fileId = imageOf(message)?.slack_file?.id;
    expect(h.fake.state.files[fileId!]?.mimetype).toBe('image/png');
    expect(JSON.stringify(message.blocks)).toContain('Success rate');
    expect(JSON.stringify(message.blocks)).not.toContain('on its way');
    // Give a stray private answer or DM the time to arrive: none does.
    await new Promise((r) => setTimeout(r, 300));
    expect(botMessages(dm).length).toBe(inDm);
    expect(h.fake.state.ephemerals.slice(ephemerals).filter((e) => e.user === 'U01ALICE')).toEqual([]);
  });

  it('--here in a channel the bot is not in: the numbers privately, saying why, and the chart in the DM', async () => {
    const deploys = h.fake.state.channels.find((c) => c.id === 'C02DEPLOYS')!;
    deploys.is_member = false;
    try {
      const ephemerals = h.fake.state.ephemerals.length;
      const dm = await dmOf('U01ALICE');
      const inDm = botMessages(dm).length;
      await h.user('U01ALICE').command(`health "${IAM}" --here`, 'C02DEPLOYS');
      const answer = await ephemeralTo('U01ALICE', ephemerals, 'health over the last 30 days');
      const said = JSON.stringify(answer.blocks);
      expect(said).toContain('I could not post the chart in <#C02DEPLOYS>');
      expect(said).toContain('/invite');
      expect(said).toContain('The chart comes to your DM with me instead.');
      const message = await chartMessage(dm, inDm);
      expect(imageOf(message)?.slack_file?.id).toMatch(/^F/);
      expect(botMessages('C02DEPLOYS').filter((m) => JSON.stringify(m.blocks).includes('health over'))).toEqual([]);
    } finally {
      deploys.is_member = true;
    }
  });

  it('a failed upload still brings the numbers to the DM, with a sentence in the chart’s place', async () => {
    h.fake.setFaults({ serverErrorRate: 1, methods: ['files.getUploadURLExternal'] });
    const dm = await dmOf('U01ALICE');
    const inDm = botMessages(dm).length;
    const files = Object.keys(h.fake.state.files).length;
    await h.user('U01ALICE').command(`health "${IAM}"`, 'C01OPS');
    const message = await chartMessage(dm, inDm);
    expect(imageOf(message)).toBeUndefined();
    expect(JSON.stringify(message.blocks)).toContain('Success rate');
    expect(JSON.stringify(message.blocks)).toContain(CHART_MISSING.slice(0, 40));
    expect(Object.keys(h.fake.state.files).length).toBe(files);
  });

  it('without a runbook, --here is refused with how to use it', async () => {
    const ephemerals = h.fake.state.ephemerals.length;
    await h.user('U01ALICE').command('health --here', 'C01OPS');
    await ephemeralTo('U01ALICE', ephemerals, 'name the runbook');
  });

  it('a runbook with no runs in the window gets its numbers and no chart', async () => {
    const from = h.clock.now() - 30 * 24 * 60 * 60_000;
    const ran = new Set(
      [...h.emulator.state.executions.byId.values()].filter((e) => e.startMs >= from).map((e) => e.workflowName),
    );
    const quiet = [...h.emulator.state.workflows.byId.values()]
      .map((w) => w.workflow.name)
      .find((name) => !ran.has(name) && /^[A-Za-z ]+$/.test(name));
    expect(quiet).toBeDefined();
    const ephemerals = h.fake.state.ephemerals.length;
    const dm = await dmOf('U01ALICE');
    const inDm = botMessages(dm).length;
    const files = Object.keys(h.fake.state.files).length;
    await h.user('U01ALICE').command(`health "${quiet}"`, 'C01OPS');
    const answer = await ephemeralTo('U01ALICE', ephemerals, 'No runs in the last');
    expect(JSON.stringify(answer.blocks)).not.toContain('on its way');
    await new Promise((r) => setTimeout(r, 300));
    expect(botMessages(dm).length).toBe(inDm);
    expect(Object.keys(h.fake.state.files).length).toBe(files);
  });
});
