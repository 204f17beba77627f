import { describe, expect, it } from 'vitest';
import { Execution } from '../../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { SECRET_MASK } from '../../../../src/forms/secrets.ts';
import {
  buildResultCard,
  buildRunningCard,
  CARD_INPUTS_SHOWN,
  OUTPUT_FILE_MIN_CHARS,
  OUTPUT_FILE_MIN_LINES,
  OUTPUT_TAIL_LINES,
  outputExceedsCard,
  outputWorthAFile,
  RESULT_CARD_MAX_BLOCKS,
  type RunContext,
} from '../../../../src/slack/kit/execution-card.ts';
import { labelInputs } from '../../../../src/slack/kit/input-summary.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import { peopleText, personText, proxyText } from '../../../../src/slack/kit/people.ts';
import { mrkdwnTexts } from '../../../support/block-texts.ts';

// Twelve inputs: titles on most, one without (humanised), two secrets (one via format, one nested).
const properties: Record<string, unknown> = {};
for (let i = 1; i <= 9; i++) properties[`param_${i}`] = { type: 'string', title: `Setting number ${i}` };
properties.api_token = { type: 'string', format: 'password', title: 'API token' };
properties.db = { type: 'object', title: 'Database', properties: { password: { type: 'string', 'x-secret': true } } };
properties.dry_run = { type: 'boolean' };
const SCHEMA = JSON.stringify({ type: 'object', properties });
const spec = parseInputSchema(SCHEMA);
const params: Record<string, unknown> = {
  api_token: 'hunter2-super-secret',
  db: { password: 'pg-secret-9', host: 'db1' },
  dry_run: true,
};
for (let i = 1; i <= 9; i++) params[`param_${i}`] = `value-${i}`;

function execution(over: Record<string, unknown> = {}) {
  return Execution.parse({
    id: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    workflowName: 'Restart pods',
    startTime: '2026-11-21T08:00:00Z',
    endTime: '2026-11-21T08:01:05Z',
    executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
    output: Array.from({ length: 300 }, (_, i) => `log line ${i + 1}`).join('\n'),
    executor: 'alice@example.com',
    ...over,
  });
}

function run(over: Partial<RunContext> = {}): RunContext {
  return {
    runbookId: 'rb1',
    runbookName: 'Restart pods',
    proxyId: 'proxy-prod',
    proxyName: 'Prod proxy',
    startedBy: 'U01ALICE',
    inputs: labelInputs(spec, params),
    ...over,
  };
}

const texts = (card: { blocks: unknown[] }) => mrkdwnTexts(card.blocks).join('\n');

describe('compact result card', () => {
  it(`a runbook with 12 inputs fits in ${RESULT_CARD_MAX_BLOCKS} blocks, failed or not, stale or not`, () => {
    expect(Object.keys(params)).toHaveLength(12);
    for (const status of ['EXECUTION_STATUS_SUCCEEDED', 'EXECUTION_STATUS_FAILED']) {
      for (const stale of [false, true]) {
        const card = buildResultCard(
          run({ approvedBy: ['U02BOB', 'U03CAROL'] }),
          execution({ executionStatus: status, reason: 'exit 1' }),
          { stale },
        );
        expect(card.blocks.length).toBeLessThanOrEqual(RESULT_CARD_MAX_BLOCKS);
        assertWithinLimits(card, 'message');
      }
    }
    const running = buildRunningCard(run(), ['e1']);
    expect(running.blocks.length).toBeLessThanOrEqual(RESULT_CARD_MAX_BLOCKS);
  });

  it('shows the first inputs under their schema titles and counts the rest for Details', () => {
    const text = texts(buildResultCard(run(), execution()));
    expect(text).toContain('*Setting number 1*: `value-1`');
    expect(text).toContain(`*Setting number ${CARD_INPUTS_SHOWN}*`);
    expect(text).not.toContain(`Setting number ${CARD_INPUTS_SHOWN + 1}`);
    expect(text).toContain(`…and ${12 - CARD_INPUTS_SHOWN} more inputs in *Details*`);
    expect(text).not.toContain('param_1');
  });

  it('labels from titles, humanised names when there is no title; secrets masked, nested ones too', () => {
    const labelled = labelInputs(spec, params);
    expect(labelled.map((i) => i.label)).toContain('API token');
    expect(labelled.find((i) => i.key === 'dry_run')?.label).toBe('Dry run');
    const all = JSON.stringify(labelled);
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('pg-secret-9');
    expect(labelled.find((i) => i.key === 'api_token')).toMatchObject({ value: SECRET_MASK, secret: true });
    // Even shown first, a secret renders as the mask, whatever value it carries.
    const card = buildResultCard(
      run({ inputs: [{ key: 'api_token', label: 'API token', value: 'leaked?', secret: true }] }),
      execution(),
    );
    expect(texts(card)).toContain(`*API token*: \`${SECRET_MASK}\``);
    expect(JSON.stringify(card)).not.toContain('leaked?');
  });

  it('says who started it and who approved it, and the proxy by its display name', () => {
    const text = texts(buildResultCard(run({ approvedBy: ['U02BOB', 'U03CAROL'] }), execution()));
    expect(text).toContain('*Started by*\n<@U01ALICE>');
    expect(text).toContain('*Approved by*\n<@U02BOB> and <@U03CAROL>');
    expect(text).toContain('*Proxy*\nProd proxy');
    expect(text).toContain('1m 5s');
    const outside = texts(buildResultCard(run({ startedBy: null, approvedBy: undefined }), execution()));
    expect(outside).toContain('*Started by*\nalice@example.com');
    expect(outside).not.toContain('Approved by');
  });

  it('keeps a short output tail and says the whole output is in the thread', () => {
    const card = buildResultCard(run(), execution());
    const text = texts(card);
    expect(text).toContain('log line 300');
    expect(text).not.toContain('log line 292\n');
    expect(text).toContain(`Last ${OUTPUT_TAIL_LINES} of 300 lines`);
    expect(JSON.stringify(card)).toContain('execution_find');
    const short = buildResultCard(run(), execution({ output: 'ok\ndone' }));
    expect(texts(short)).not.toContain('in the thread');
    expect(outputExceedsCard('ok\ndone')).toBe(false);
    expect(outputExceedsCard('x'.repeat(5000))).toBe(true);
    expect(
      outputExceedsCard(
        Array(OUTPUT_TAIL_LINES + 1)
          .fill('a')
          .join('\n'),
      ),
    ).toBe(true);
  });

  it('a short output the card cuts gets no file: the card points at Full output instead', () => {
    const nine = Array.from({ length: OUTPUT_TAIL_LINES + 1 }, (_, i) => `step ${i}`).join('\n');
    expect(outputWorthAFile(nine)).toBe(false);
    expect(outputWorthAFile(Array.from({ length: OUTPUT_FILE_MIN_LINES + 1 }, () => 'a').join('\n'))).toBe(true);
    expect(outputWorthAFile('x'.repeat(OUTPUT_FILE_MIN_CHARS + 1))).toBe(true);
    const card = texts(buildResultCard(run(), execution({ output: nine })));
    expect(card).toContain(`Last ${OUTPUT_TAIL_LINES} of ${OUTPUT_TAIL_LINES + 1} lines`);
    expect(card).toContain('*Full output* shows all of it');
    expect(card).not.toContain('in the thread');
  });
});

describe('people and proxies are written one way', () => {
  it('a Slack user is a mention, anyone else their email, nobody in words', () => {
    expect(personText({ userId: 'U01ALICE', email: 'alice@example.com' })).toBe('<@U01ALICE>');
    expect(personText({ email: 'bob@example.com' })).toBe('bob@example.com');
    expect(personText({ userId: '<!channel>' })).toBe('&lt;!channel&gt;');
    expect(personText(null)).toBe('someone outside Slack');
    expect(peopleText([{ userId: 'U1A' }, { userId: 'U2B' }, { email: 'c@x' }])).toBe('<@U1A>, <@U2B> and c@x');
    expect(proxyText({ id: 'proxy-prod', name: 'Prod proxy' })).toBe('Prod proxy');
    expect(proxyText({ id: 'proxy-<x>' })).toBe('proxy-&lt;x&gt;');
  });
});

describe('executors Slack knows are mentioned', () => {
  it('in the executions list and App Home, by email lookup; others stay emails', async () => {
    const { buildExecutionList } = await import('../../../../src/slack/executions/execution-list.ts');
    const { buildAppHome } = await import('../../../../src/slack/home/app-home.ts');
    const items = [execution({ executor: 'Alice@Example.com' }), execution({ id: 'e2', executor: 'bot@api' })];
    const people = new Map([['alice@example.com', 'U01ALICE']]);
    const list = JSON.stringify(
      buildExecutionList({
        page: { items, nextPageToken: '', pageCount: 1, statusTable: {} },
        query: { runbookQuery: null, status: null, last: null, tokens: [] },
        runbookName: null,
        people,
      }).blocks,
    );
    expect(list).toContain('by <@U01ALICE>');
    expect(list).toContain('by bot@api');
    const home = JSON.stringify(buildAppHome({ executions: items, schedules: [], now: 0, people }).blocks);
    expect(home).toContain('<@U01ALICE>');
    expect(home).not.toContain('Alice@Example.com');
  });
});

describe('result cards of runs started outside Slack', () => {
  it('name the executor as a mention when the caller found their email in Slack, else by email', async () => {
    const { buildSubscriptionNotice } = await import('../../../../src/watch/subscription-notice.ts');
    const { buildExecutionStatus } = await import('../../../../src/slack/kit/execution-status.ts');
    const people = new Map([['alice@example.com', 'U01ALICE']]);
    const known = execution({ executor: 'Alice@Example.com', approver: 'alice@example.com' });
    const outside = run({ startedBy: null, approvedBy: undefined });
    expect(texts(buildResultCard(outside, known, { people }))).toContain('*Started by*\n<@U01ALICE>');
    expect(texts(buildResultCard(outside, known))).toContain('*Started by*\nAlice@Example.com');
    const stranger = execution({ executor: 'bob@example.com' });
    expect(texts(buildResultCard(outside, stranger, { people }))).toContain('*Started by*\nbob@example.com');
    // Whoever started it from Slack stays the one named, whatever the executor's email says.
    expect(texts(buildResultCard(run({ startedBy: 'U09SAM' }), known, { people }))).toContain(
      '*Started by*\n<@U09SAM>',
    );

    const notice = JSON.stringify(buildSubscriptionNotice(known, { id: 'r1', name: 'Restart' }, {}, people).blocks);
    expect(notice).toContain('*Started by*\\n<@U01ALICE>');
    expect(JSON.stringify(buildSubscriptionNotice(stranger, null, {}, people).blocks)).toContain(
      '*Started by*\\nbob@example.com',
    );

    const status = (p?: Map<string, string>) =>
      JSON.stringify(
        buildExecutionStatus({
          execution: known,
          inputs: { kind: 'object', values: {} },
          runbookId: null,
          ...(p ? { people: p } : {}),
        }).blocks,
      );
    expect(status(people)).toContain('*Run by*\\n<@U01ALICE>');
    expect(status(people)).toContain('*Approved by*\\n<@U01ALICE>');
    expect(status()).toContain('*Run by*\\nAlice@Example.com');
  });
});
