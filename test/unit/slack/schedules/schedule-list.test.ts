import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { Schedule } from '../../../../src/api/schemas.ts';
import { ACTIONS } from '../../../../src/slack/kit/ids.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import {
  buildScheduleList,
  decodeScheduleRef,
  decodeSchedulesPage,
  encodeScheduleRef,
  SCHEDULES_PAGE_SIZE,
  type ScheduleListInput,
  summarizeParams,
} from '../../../../src/slack/schedules/schedule-list.ts';
import type { SchedulePause } from '../../../../src/store/store.ts';

const NOW = new Date('2026-01-05T04:00:00Z');

const SECRET_SCHEMA = JSON.stringify({
  type: 'object',
  properties: {
    region: { type: 'string', title: 'region' },
    password: { type: 'secret', title: 'password' },
  },
});

function schedule(overrides: Record<string, unknown> = {}): Schedule {
  return Schedule.parse({
    id: 'sch-1',
    proxyId: 'proxy-1',
    proxyName: 'Prod proxy',
    runbookId: 'rb-1',
    runbookName: 'Restart Pods',
    inputSchema: '',
    params: '{}',
    schedule: '0 5 * * *',
    lastRun: '2026-01-04T05:00:00Z',
    userEmail: 'ops@example.com',
    ...overrides,
  });
}

function build(input: Partial<ScheduleListInput> = {}) {
  const message = buildScheduleList({ schedules: [schedule()], runbook: null, page: 0, now: NOW, ...input });
  assertWithinLimits(message, 'message');
  return message;
}

const sections = (blocks: KnownBlock[]) => blocks.filter((b): b is SectionBlock => b.type === 'section');
const allText = (blocks: KnownBlock[]) => JSON.stringify(blocks);
const actionRows = (blocks: KnownBlock[]) =>
  blocks.filter((b): b is ActionsBlock => b.type === 'actions' && String(b.block_id).startsWith('schedule_'));
const buttons = (blocks: KnownBlock[]) =>
  blocks.filter((b): b is ActionsBlock => b.type === 'actions').flatMap((b) => b.elements as Button[]);

/** A paused row of schedule sch-1 (Alice paused `0 5 * * *`). */
function pausedRow(over: Partial<SchedulePause> = {}): SchedulePause {
  return {
    scheduleId: 'sch-1',
    installationId: '',
    state: 'paused',
    cron: '0 5 * * *',
    runbookId: 'rb-1',
    runbookName: 'Restart Pods',
    pausedBy: 'U01ALICE',
    teamId: null,
    resumeAt: null,
    freeze: null,
    pausedAt: Date.parse('2026-01-04T10:00:00Z'),
    updatedAt: Date.parse('2026-01-04T10:00:00Z'),
    ...over,
  };
}

describe('buildScheduleList', () => {
  it('shows the cron in code with its English, the next run for the given now, proxy, owner and last run', () => {
    const { blocks } = build();
    const text = sections(blocks)
      .map((s) => s.text?.text)
      .join('\n');
    expect(text).toContain('*Restart Pods*');
    expect(text).toContain('`0 5 * * *`');
    expect(text).toContain('At 05:00, every day (GMT)');
    // Next run after 04:00 GMT on 5 Jan 2026 is 05:00 GMT the same day, as a Slack date token.
    const next = Date.UTC(2026, 0, 5, 5, 0) / 1000;
    expect(text).toContain(`Next run <!date^${next}^`);
    expect(text).toContain('2026-01-05 05:00 UTC');
    expect(text).toContain('`Prod proxy`');
    expect(text).toContain('owner ops@example.com');
    expect(text).toContain(`<!date^${Date.UTC(2026, 0, 4, 5) / 1000}^`);
  });

  it('falls back to the proxy id when the proxy has no name', () => {
    const { blocks } = build({ schedules: [schedule({ proxyName: '' })] });
    expect(allText(blocks)).toContain('`proxy-1`');
  });

  it('escapes text from the API so it cannot ping or link', () => {
    const { blocks } = build({
      schedules: [schedule({ runbookName: '<!channel> & <http://evil|click>', userEmail: '<@U123>' })],
    });
    const text = sections(blocks)[0]!.text!.text;
    expect(text).toContain('&lt;!channel&gt; &amp; &lt;http://evil|click&gt;');
    expect(text).toContain('&lt;@U123&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U123>');
  });

  it('warns about expressions that probably do not mean what they say', () => {
    const { blocks } = build({ schedules: [schedule({ schedule: '* 5 * * *' })] });
    const text = sections(blocks)[0]!.text!.text;
    expect(text).toContain(':warning: This runs every minute from 05:00 to 05:59');
  });

  it('shows a stored expression that is not valid cron with its error instead of a next run', () => {
    const { blocks } = build({ schedules: [schedule({ schedule: '@daily' })] });
    const text = sections(blocks)[0]!.text!.text;
    expect(text).toContain('`@daily`');
    expect(text).toContain('not supported');
    expect(text).not.toContain('Next run');
  });

  it('offers Edit, Pause, Skip next run, Run now and Delete, carrying the schedule id and the filtered runbook', () => {
    const { blocks } = build({ runbook: { id: 'rb-1', name: 'Restart Pods' } });
    const row = actionRows(blocks)[0]!;
    const ids = (row.elements as Button[]).map((b) => b.action_id);
    expect(ids).toEqual([
      ACTIONS.scheduleEdit,
      ACTIONS.schedulePause,
      ACTIONS.scheduleSkip,
      ACTIONS.scheduleRunNow,
      ACTIONS.scheduleDelete,
    ]);
    for (const b of row.elements as Button[])
      expect(decodeScheduleRef(b.value)).toMatchObject({ id: 'sch-1', r: 'rb-1' });
    // Pause and Skip name the drawing they belong to (the list is redrawn in place: each drawing's buttons are new).
    const drawing = (b: Button) => decodeScheduleRef(b.value)?.n;
    const [edit, pause, skip, runNow] = row.elements as Button[];
    expect(drawing(pause!)).toBe(drawing(skip!));
    expect(drawing(pause!)).toMatch(/^[0-9a-z]+$/);
    expect(drawing(edit!)).toBeUndefined();
    expect(drawing(runNow!)).toBeUndefined();
  });

  it('a paused schedule shows its real expression, who paused it and when, and Resume instead of Edit and Pause', () => {
    const pause = pausedRow();
    const { blocks } = build({
      schedules: [schedule({ schedule: '0 0 30 2 *' })],
      pauses: new Map([['sch-1', pause]]),
    });
    const text = allText(blocks);
    expect(text).toContain('`0 5 * * *`');
    expect(text).not.toContain('0 0 30 2 *');
    expect(text).toContain('*Paused* by <@U01ALICE> <!date^1767520800^');
    expect(text).toContain('no runs until resumed');
    const row = actionRows(blocks)[0]!;
    expect((row.elements as Button[]).map((b) => b.action_id)).toEqual([
      ACTIONS.scheduleResume,
      ACTIONS.scheduleRunNow,
      ACTIONS.scheduleDelete,
    ]);
    const del = (row.elements as Button[]).find((b) => b.action_id === ACTIONS.scheduleDelete)!;
    expect(del.confirm?.text.text).toContain('(0 5 * * *)');
  });

  it('a schedule a change freeze paused names the freeze (escaped), not a person', () => {
    const pause = pausedRow({ freeze: 'Year <end> *freeze*' });
    const text = allText(
      build({ schedules: [schedule({ schedule: '0 0 30 2 *' })], pauses: new Map([['sch-1', pause]]) }).blocks,
    );
    expect(text).toContain('by the change freeze *Year &lt;end&gt;');
    expect(text).toContain('resumes by itself when it ends');
    expect(text).not.toContain('<@U01ALICE>');
    expect(text).toContain('`0 5 * * *`');
  });

  it('asks for confirmation before Delete, naming the runbook and the expression', () => {
    const { blocks } = build();
    const del = (actionRows(blocks)[0]!.elements as Button[]).find((b) => b.action_id === ACTIONS.scheduleDelete)!;
    expect(del.style).toBe('danger');
    expect(del.confirm?.text.text).toContain('Delete the schedule of Restart Pods (0 5 * * *)?');
    expect(del.confirm?.confirm?.text).toBe('Delete');
    expect(del.confirm?.style).toBe('danger');
  });

  it('never shows secret parameter values when the schedule carries its schema', () => {
    const { blocks } = build({
      schedules: [
        schedule({ inputSchema: SECRET_SCHEMA, params: JSON.stringify({ region: 'us-west-2', password: 'hunter2' }) }),
      ],
    });
    const text = allText(blocks);
    expect(text).toContain('region=`us-west-2`');
    expect(text).toContain('password=`••••••`');
    expect(text).not.toContain('hunter2');
  });

  it("masks with the runbook's schema from the catalog when the schedule has none", () => {
    const schemas = new Map([['rb-1', SECRET_SCHEMA]]);
    const text = summarizeParams(
      { runbookId: 'rb-1', inputSchema: '', params: JSON.stringify({ region: 'eu', password: 's3cret' }) },
      schemas,
    );
    expect(text).toContain('region=`eu`');
    expect(text).not.toContain('s3cret');
  });

  it('shows only parameter names when no schema is known, since any of them may be secret', () => {
    const text = summarizeParams({ runbookId: 'rb-x', inputSchema: '', params: JSON.stringify({ token: 'abc123' }) });
    expect(text).toContain('`token`');
    expect(text).not.toContain('abc123');
    expect(text).toContain('values hidden');
  });

  it('says when there are no parameters or they cannot be read', () => {
    expect(summarizeParams({ runbookId: 'r', inputSchema: '', params: '' })).toBe('_no parameters_');
    expect(summarizeParams({ runbookId: 'r', inputSchema: '', params: '{not json' })).toContain('could not be read');
  });

  it('pages at SCHEDULES_PAGE_SIZE with Previous/Next carrying the filter and page', () => {
    const many = Array.from({ length: 30 }, (_, i) => schedule({ id: `sch-${i}`, runbookName: `Runbook ${i}` }));
    const first = build({ schedules: many });
    expect(actionRows(first.blocks)).toHaveLength(SCHEDULES_PAGE_SIZE);
    expect(first.blocks.length).toBeLessThanOrEqual(50);
    const nextButton = buttons(first.blocks).find((b) => b.action_id === `${ACTIONS.schedulesPage}_next`)!;
    expect(decodeSchedulesPage(nextButton.value)).toEqual({ runbookId: null, page: 1 });
    expect(buttons(first.blocks).some((b) => b.action_id === `${ACTIONS.schedulesPage}_prev`)).toBe(false);

    const last = build({ schedules: many, page: 2 });
    expect(actionRows(last.blocks)).toHaveLength(30 - 2 * SCHEDULES_PAGE_SIZE);
    expect(allText(last.blocks)).toContain('Runbook 29');
    const prev = buttons(last.blocks).find((b) => b.action_id === `${ACTIONS.schedulesPage}_prev`)!;
    expect(decodeSchedulesPage(prev.value)).toEqual({ runbookId: null, page: 1 });
    expect(last.text).toContain('page 3 of 3');
  });

  it('clamps a page past the end to the last page', () => {
    const many = Array.from({ length: 13 }, (_, i) => schedule({ id: `sch-${i}` }));
    const message = build({ schedules: many, page: 9 });
    expect(actionRows(message.blocks)).toHaveLength(1);
  });

  it('stays within Slack limits with a full page of long, noisy schedules', () => {
    const noisy = Array.from({ length: 40 }, (_, i) =>
      schedule({
        id: `sch-${i}`,
        runbookName: '<&>'.repeat(300),
        userEmail: 'x'.repeat(500),
        schedule: '* * * * *',
        inputSchema: SECRET_SCHEMA,
        params: JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`p${k}`, 'v'.repeat(500)]))),
      }),
    );
    const message = build({ schedules: noisy, runbook: { id: 'rb-1', name: 'n'.repeat(400) }, notice: 'Deleted.' });
    expect(message.blocks.length).toBeLessThanOrEqual(50);
  });

  it('explains how to create a schedule when there are none', () => {
    const message = build({ schedules: [] });
    expect(allText(message.blocks)).toContain('/runbook schedule');
    expect(message.text).toBe('0 schedules');
  });

  it('offers New schedule for the runbook when a filtered list is empty', () => {
    const message = build({ schedules: [], runbook: { id: 'rb-9', name: 'Vacuum <db>' } });
    expect(allText(message.blocks)).toContain('*Vacuum &lt;db&gt;* has no schedules yet');
    const create = buttons(message.blocks).find((b) => b.action_id === ACTIONS.runbookSchedule)!;
    expect(create.value).toBe('rb-9');
  });

  it('shows a notice above the list', () => {
    const message = build({ notice: ':wastebasket: The schedule was deleted.' });
    expect(sections(message.blocks)[0]!.text!.text).toBe(':wastebasket: The schedule was deleted.');
  });
});

describe('schedule refs and page state', () => {
  it('round-trips and accepts a bare id', () => {
    expect(decodeScheduleRef(encodeScheduleRef({ id: 'a', r: null }))).toEqual({ id: 'a', r: null });
    expect(decodeScheduleRef('plain-id')).toEqual({ id: 'plain-id', r: null });
    expect(decodeScheduleRef('')).toBeNull();
    expect(decodeScheduleRef('{"id":3}')).toBeNull();
  });

  it('falls back to the first page of all schedules on a malformed value', () => {
    expect(decodeSchedulesPage('nope')).toEqual({ runbookId: null, page: 0 });
    expect(decodeSchedulesPage('{"runbookId":"r","page":-2}')).toEqual({ runbookId: 'r', page: 0 });
  });
});

describe('proxy names', () => {
  it('uses the directory’s display name when given, so a proxy reads the same as on cards', async () => {
    const { buildScheduleList } = await import('../../../../src/slack/schedules/schedule-list.ts');
    const { Schedule } = await import('../../../../src/api/schemas.ts');
    const schedule = Schedule.parse({
      id: 's1',
      runbookId: 'r1',
      runbookName: 'X',
      schedule: '0 2 * * *',
      proxyId: 'p-prod',
      proxyName: 'p-prod',
    });
    const list = buildScheduleList({
      schedules: [schedule],
      runbook: null,
      page: 0,
      now: new Date(0),
      proxyNames: new Map([['p-prod', 'Production']]),
    });
    expect(JSON.stringify(list.blocks)).toContain('Proxy `Production`');
  });
});
