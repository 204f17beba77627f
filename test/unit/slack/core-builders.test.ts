// The builders the lead wrote: help, runbook list, details, pick lists, run modal, execution
// cards and App Home. Each is checked for content, for escaping of API text, and for limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Execution, Workflow } from '../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { buildRunbookDetails } from '../../../src/slack/browse/runbook-details.ts';
import { buildAppHome } from '../../../src/slack/home/app-home.ts';
import { buildResultCard, buildRunningCard } from '../../../src/slack/kit/execution-card.ts';
import { buildCommandError, buildHelp } from '../../../src/slack/kit/help-message.ts';
import { assertWithinLimits, checkBlocks, checkView } from '../../../src/slack/kit/limits.ts';
import { parseCommand, SUBCOMMAND_NAMES, SUBCOMMANDS } from '../../../src/slack/kit/parse-command.ts';
import { buildRunModal } from '../../../src/slack/kit/run-modal.ts';
import { buildRunbookChoice } from '../../../src/slack/kit/runbook-choice.ts';
import { buildRunbookList, decodeListState, encodeListState } from '../../../src/slack/kit/runbook-list.ts';
import { mrkdwnTexts } from '../../support/block-texts.ts';

const SCHEMA = JSON.stringify({
  type: 'object',
  properties: {
    region: { type: 'string', default: 'us-west-2', title: 'Region' },
    token: { type: 'string', format: 'password', title: 'Token' },
    dry_run: { type: 'boolean', default: true },
  },
  required: ['region'],
});

function workflow(over: Record<string, unknown> = {}) {
  return Workflow.parse({
    id: 'a'.repeat(64),
    name: 'Restart <!channel> & <@U123> <http://evil|click>',
    description: 'Does *things* <!here>',
    tags: ['k8s', '<!everyone>'],
    categories: ['CATEGORY_TYPE_SRE'],
    connectorTypes: ['CONNECTOR_TYPE_K8S'],
    inputSchema: SCHEMA,
    environmentStatus: [{ environmentName: 'Prod <x>', status: 'NotReady', reason: ['down <!channel>'] }],
    lastRun: '2026-11-20T10:00:00Z',
    ...over,
  });
}

function execution(over: Record<string, unknown> = {}) {
  return Execution.parse({
    id: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    workflowName: 'Restart <!channel>',
    startTime: '2026-11-21T08:00:00Z',
    endTime: '2026-11-21T08:01:05Z',
    executionStatus: 'EXECUTION_STATUS_FAILED',
    reason: 'exit 1 <!here>',
    output: 'line\n'.repeat(2000),
    executor: 'alice@example.com',
    ...over,
  });
}

/** No mention, broadcast or link can come from API text: every <…> token in mrkdwn is ours. */
function ourAngleBracketsOnly(surface: unknown) {
  const found =
    mrkdwnTexts(surface)
      .join('\n')
      .match(/<[^>]*>/g) ?? [];
  for (const token of found) {
    expect(token).toMatch(/^<(@U01ALICE|!date\^\d+\^[^|]*\|[^>]*|#C[A-Z0-9]+)>$/);
  }
}

describe('help', () => {
  it('lists every subcommand and stays within limits', () => {
    const help = buildHelp(null);
    const text = JSON.stringify(help.blocks);
    for (const name of SUBCOMMAND_NAMES) expect(text).toContain(`/runbook ${name}`);
    assertWithinLimits(help, 'message');
    assertWithinLimits(buildHelp('executions'), 'message');
  });
  it('a command error shows the mistake, the suggestion and the topic help', () => {
    const msg = buildCommandError({ error: 'bad <!channel>', topic: 'list', suggestion: 'list' });
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain('bad &lt;!channel&gt;');
    expect(text).toContain('Did you mean `list`?');
    expect(text).toContain('--category');
  });
  it('a word that is no subcommand gets one line of subcommand names, not the whole help', () => {
    const parsed = parseCommand('zzqx');
    if (parsed.ok) throw new Error('zzqx parsed');
    const msg = buildCommandError(parsed);
    const text = mrkdwnTexts(msg.blocks).join('\n');
    expect(text).toContain('`zzqx` is neither a /runbook subcommand');
    expect(text).toContain('Subcommands: `help` `list` `show` `run`');
    expect(text).toContain('`/runbook help` says what each does');
    expect(text).not.toContain(SUBCOMMANDS.list.description);
    expect(msg.blocks.length).toBeLessThanOrEqual(3);
  });
});

describe('runbook list and details', () => {
  const page = {
    items: [workflow(), workflow({ id: 'b'.repeat(64), runningDisabled: true, requiresApproval: true })],
    page: 1,
    pageCount: 3,
    total: 20,
    categories: [{ name: 'CATEGORY_TYPE_SRE', count: '8' }],
    category: null,
  };

  it('escapes API text, shows badges, per-row actions and paging', () => {
    const msg = buildRunbookList(page, { w: 'restart', s: 'all', c: null, p: 1 });
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain('Restart &lt;!channel&gt; &amp; &lt;@U123&gt;');
    ourAngleBracketsOnly(JSON.parse(text));
    expect(text).toContain(':lock: needs approval');
    expect(text).toContain(':no_entry: disabled');
    expect(text).toContain('list_page_prev');
    expect(text).toContain('list_page_next');
    // the disabled runbook has no Run button: only one runbook_run in the message
    expect(text.match(/"runbook_run"/g)?.length).toBe(1);
    assertWithinLimits(msg, 'message');
  });

  it('reads its header naturally: the kind before the noun, then the filters', () => {
    const service = JSON.stringify(
      buildRunbookList({ ...page, page: 0, pageCount: 6, total: 43 }, { w: '', s: 'service', c: null, p: 0 }).blocks,
    );
    expect(service).toContain('43 service runbooks · page 1 of 6');
    const custom = JSON.stringify(
      buildRunbookList(
        { ...page, items: [], page: 0, pageCount: 1, total: 0, category: 'CATEGORY_TYPE_SRE' },
        { w: '', s: 'custom', c: 'CATEGORY_TYPE_SRE', p: 0 },
      ).blocks,
    );
    expect(custom).toContain('0 custom runbooks in SRE');
    expect(custom).not.toContain('runbooks custom');
    const one = JSON.stringify(
      buildRunbookList({ ...page, page: 0, pageCount: 1, total: 1 }, { w: 'restart', s: 'all', c: null, p: 0 }).blocks,
    );
    expect(one).toContain('1 runbook matching “restart” · page 1 of 1');
  });

  it('list state survives the round trip through a button value', () => {
    const state = { w: 'a "b"', s: 'custom' as const, c: 'CATEGORY_TYPE_SRE', p: 2 };
    expect(decodeListState(encodeListState(state))).toEqual(state);
    expect(decodeListState('not json')).toEqual({ w: '', s: 'all', c: null, p: 0 });
  });

  it('details show inputs with types and defaults, environments and hide secret defaults', () => {
    const msg = buildRunbookDetails(workflow(), parseInputSchema(SCHEMA));
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain('*Region* (text, required, default `\\"us-west-2\\"`)');
    expect(text).toContain('*Token* (secret, optional)');
    expect(text).toContain('Prod &lt;x&gt;: NotReady');
    ourAngleBracketsOnly(JSON.parse(text));
    assertWithinLimits(msg, 'message');
  });

  it('pick lists escape the typed query', () => {
    const msg = buildRunbookChoice('<!channel>', { kind: 'several', candidates: [workflow(), workflow()] }, 'run');
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain('&lt;!channel&gt;');
    ourAngleBracketsOnly(JSON.parse(text));
    assertWithinLimits(msg, 'message');
  });
});

describe('run modal', () => {
  const proxies = { options: [{ id: 'p1', name: 'Prod' }], initial: 'p1' };
  it('has proxy, channel, the generated form and a submit', () => {
    const runbook = workflow();
    const view = buildRunModal({
      runbook,
      spec: parseInputSchema(runbook.inputSchema),
      proxies,
      metadata: { r: runbook.id, c: 'C01OPS' },
      withPicker: false,
      notes: ['note'],
    });
    expect(checkView(view)).toEqual([]);
    const text = JSON.stringify(view);
    expect(text).toContain('"initial_conversation":"C01OPS"');
    expect(text).toContain('field_region');
    expect(view.submit?.text).toBe('Run');
  });
  it('a runbook without inputs asks only for confirmation; the bare picker asks for a runbook', () => {
    const runbook = workflow({ inputSchema: '' });
    const view = buildRunModal({
      runbook,
      spec: parseInputSchema(''),
      proxies,
      metadata: { r: runbook.id, c: 'D123' },
      withPicker: true,
    });
    expect(JSON.stringify(view)).toContain('takes no input');
    expect(JSON.stringify(view)).not.toContain('initial_conversation');
    const picker = buildRunModal({
      runbook: null,
      spec: null,
      proxies,
      metadata: { r: null, c: null },
      withPicker: true,
    });
    expect(picker.submit?.text).toBe('Run');
    expect(JSON.stringify(picker)).toContain('Pick a runbook to see its form');
    expect(checkView(picker)).toEqual([]);
  });
});

describe('execution cards', () => {
  const run = {
    runbookId: 'x',
    runbookName: 'Restart <!channel>',
    proxyId: 'p1',
    startedBy: 'U01ALICE',
    inputs: { token: '••••••', note: '<!here>' },
  };
  it('running card mentions the starter and escapes inputs', () => {
    const card = buildRunningCard(run, ['e1']);
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('<@U01ALICE>');
    expect(text).toContain('&lt;!here&gt;');
    ourAngleBracketsOnly(JSON.parse(text));
    assertWithinLimits(card, 'message');
  });
  it('result card shows reason, duration and a trimmed output tail with actions', () => {
    const card = buildResultCard(run, execution());
    const text = JSON.stringify(card.blocks);
    expect(text).toContain(':x:');
    expect(text).toContain('exit 1 &lt;!here&gt;');
    expect(text).toContain('1m 5s');
    expect(text).toContain('earlier lines not shown');
    expect(text).toContain('execution_output');
    expect(text).toContain('execution_rerun');
    ourAngleBracketsOnly(JSON.parse(text));
    assertWithinLimits(card, 'message');
  });
});

describe('App Home', () => {
  it('renders lists, and a failed list as a sentence', () => {
    const home = buildAppHome({
      executions: [execution()],
      schedules: new Error('boom'),
      now: Date.parse('2026-11-21T08:00:00Z'),
    });
    expect(checkView(home)).toEqual([]);
    const text = JSON.stringify(home);
    expect(text).toContain('Could not load schedules');
    expect(text).toContain('home_run');
  });
});

describe('properties over random command text', () => {
  it('whatever is typed, the answer to a malformed command cannot ping or link', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.constantFrom('', 'list ', 'show ', 'executions --status ', 'zz'),
        (text, prefix) => {
          const parsed = parseCommand(prefix + text);
          if (parsed.ok) return;
          const msg = buildCommandError(parsed);
          expect(checkBlocks(msg.blocks, 'message')).toEqual([]);
          for (const t of mrkdwnTexts(msg.blocks)) expect(t).not.toMatch(/<[!@#]|<https?:/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('properties over random API text', () => {
  it('no builder lets API text ping, link or break limits', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.array(fc.string({ maxLength: 60 }), { maxLength: 12 }),
        (text, tags) => {
          const runbook = workflow({ name: text, description: text, tags, inputSchema: text });
          const exec = execution({ workflowName: text, reason: text, output: text, executor: text });
          const messages = [
            buildRunbookList(
              { items: [runbook, runbook], page: 0, pageCount: 1, total: 2, categories: [], category: null },
              { w: text, s: 'all', c: null, p: 0 },
            ),
            buildRunbookDetails(runbook, parseInputSchema(runbook.inputSchema)),
            buildRunningCard(
              { runbookId: runbook.id, runbookName: text, proxyId: text, startedBy: null, inputs: { [text]: text } },
              [text],
            ),
            buildResultCard(
              { runbookId: runbook.id, runbookName: text, proxyId: text, startedBy: null, inputs: {} },
              exec,
            ),
            buildRunbookChoice(text, { kind: 'none', suggestions: [runbook] }, 'show'),
          ];
          for (const msg of messages) {
            expect(checkBlocks(msg.blocks, 'message')).toEqual([]);
            for (const token of mrkdwnTexts(msg.blocks)
              .join('\n')
              .match(/<[^>]*>/g) ?? []) {
              expect(token).toMatch(/^<(!date\^\d+\^[^|]*\|[^>]*)>$/);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
