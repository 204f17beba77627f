import type { InputBlock, KnownBlock, ModalView, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { Workflow } from '../../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import {
  buildCronPreviewBlock,
  builderFromCron,
  buildScheduleModal,
  cronFromBuilder,
  DEFAULT_BUILDER,
  decodeScheduleMetadata,
  encodeScheduleMetadata,
  nextScheduleBuilder,
  readScheduleBuilder,
  refreshScheduleModal,
  type ScheduleBuilder,
  type ScheduleModalInput,
  shownPresetKind,
} from '../../../../src/slack/schedules/schedule-modal.ts';
import { readScheduleSubmission } from '../../../../src/slack/schedules/schedules.ts';

const NOW = new Date('2026-01-05T04:00:00Z');

const SCHEMA = JSON.stringify({
  type: 'object',
  required: ['region'],
  properties: {
    region: { type: 'string', title: 'region', default: 'us-west-2' },
    password: { type: 'secret', title: 'password' },
    count: { type: 'integer', title: 'count' },
  },
});

const runbook = Workflow.parse({
  id: 'rb-1',
  name: 'Restart <Pods> & co',
  description: 'Restarts <!here> pods',
  inputSchema: SCHEMA,
});
const spec = parseInputSchema(runbook.inputSchema);
const proxies = { options: [{ id: 'p1', name: 'Prod' }], initial: 'p1' };

function modal(overrides: Partial<ScheduleModalInput> = {}): ModalView {
  const view = buildScheduleModal({
    runbook,
    spec,
    proxies,
    builder: DEFAULT_BUILDER,
    metadata: { r: 'rb-1', s: null, c: 'C1' },
    now: NOW,
    timeZone: 'UTC',
    ...overrides,
  });
  assertWithinLimits(view, 'modal');
  return view;
}

type Surface = Pick<ModalView, 'blocks'>;
const blockById = (view: Surface, id: string) => view.blocks.find((b) => b.block_id === id) as KnownBlock | undefined;
const inputById = (view: Surface, id: string) => blockById(view, id) as InputBlock | undefined;
const previewText = (view: Surface) => (blockById(view, BLOCKS.cronPreview) as SectionBlock).text!.text;
const select = (value: string) => ({ type: 'static_select', selected_option: { value } });

describe('buildScheduleModal', () => {
  it('with no runbook shows only the picker', () => {
    const view = modal({ runbook: null, spec: null, metadata: { r: null, s: null, c: null } });
    expect(view.callback_id).toBe(VIEWS.schedule);
    expect(view.title.text).toBe('New schedule');
    const picker = inputById(view, BLOCKS.runbookPicker)!;
    expect(picker.dispatch_action).toBe(true);
    expect(picker.element.type).toBe('external_select');
    expect(blockById(view, BLOCKS.preset)).toBeUndefined();
  });

  it('on create shows picker, proxy, the form and the builder with a preview, submit "Create"', () => {
    const view = modal();
    expect(view.submit?.text).toBe('Create');
    expect(decodeScheduleMetadata(view.private_metadata)).toEqual({ r: 'rb-1', s: null, c: 'C1' });
    const ids = view.blocks.map((b) => b.block_id).filter(Boolean);
    expect(ids).toEqual([
      BLOCKS.runbookPicker,
      BLOCKS.scheduleSummary,
      BLOCKS.proxy,
      ...(spec.kind === 'fields' ? spec.fields.map((f) => f.blockId) : []),
      BLOCKS.scheduleHeader,
      BLOCKS.preset,
      BLOCKS.presetTime,
      BLOCKS.cronPreview,
    ]);
    const picker = inputById(view, BLOCKS.runbookPicker)!.element as { initial_option?: { value: string } };
    expect(picker.initial_option?.value).toBe('rb-1');
    expect(JSON.stringify(view.blocks)).toContain('Restarts &lt;!here&gt; pods');
  });

  it('on edit shows the runbook name as text instead of the picker, submit "Save"', () => {
    const view = modal({ metadata: { r: 'rb-1', s: 'sch-1', c: null } });
    expect(view.title.text).toBe('Edit schedule');
    expect(view.submit?.text).toBe('Save');
    expect(blockById(view, BLOCKS.runbookPicker)).toBeUndefined();
    const summary = (blockById(view, BLOCKS.scheduleSummary) as SectionBlock).text!.text;
    expect(summary).toContain('*Restart &lt;Pods&gt; &amp; co*');
  });

  it('prefills the form from params but never a secret', () => {
    const view = modal({ prefill: { region: 'eu-central-1', password: 'hunter2', count: 3 } });
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('eu-central-1');
    expect(json).not.toContain('hunter2');
  });

  it('makes the preset select dispatch and offers every preset kind', () => {
    const view = modal();
    const preset = inputById(view, BLOCKS.preset)!;
    expect(preset.dispatch_action).toBe(true);
    const element = preset.element as {
      action_id: string;
      options: { value: string }[];
      initial_option: { value: string };
    };
    expect(element.action_id).toBe(ACTIONS.presetSelect);
    expect(element.options.map((o) => o.value)).toEqual([
      'every_n_minutes',
      'hourly',
      'daily',
      'weekdays',
      'weekly',
      'monthly',
      'custom',
    ]);
    expect(element.initial_option.value).toBe('daily');
  });

  it('uses a GMT timepicker and says in the hint that the time is GMT', () => {
    const view = modal({ builder: { ...DEFAULT_BUILDER, kind: 'daily', time: '06:30' } });
    const time = inputById(view, BLOCKS.presetTime)!;
    expect(time.element).toMatchObject({
      type: 'timepicker',
      action_id: ACTIONS.presetTime,
      initial_time: '06:30',
      timezone: 'UTC',
    });
    expect(time.hint?.text).toMatch(/GMT/);
    expect(time.dispatch_action).toBe(true);
  });

  it('shows the detail inputs each preset needs', () => {
    const detailIds = (kind: ScheduleBuilder['kind']) =>
      modal({ builder: { ...DEFAULT_BUILDER, kind } })
        .blocks.map((b) => b.block_id)
        .filter((id) => id?.startsWith('meta_preset_') || id === BLOCKS.cron);
    expect(detailIds('every_n_minutes')).toEqual([BLOCKS.presetMinutes]);
    expect(detailIds('hourly')).toEqual([BLOCKS.presetHourMinute]);
    expect(detailIds('daily')).toEqual([BLOCKS.presetTime]);
    expect(detailIds('weekdays')).toEqual([BLOCKS.presetTime]);
    expect(detailIds('weekly')).toEqual([BLOCKS.presetWeekday, BLOCKS.presetTime]);
    expect(detailIds('monthly')).toEqual([BLOCKS.presetMonthDay, BLOCKS.presetTime]);
    expect(detailIds('custom')).toEqual([BLOCKS.cron]);
  });

  it('offers 5/10/15/20/30 minutes and days 1–28', () => {
    const minutes = inputById(
      modal({ builder: { ...DEFAULT_BUILDER, kind: 'every_n_minutes' } }),
      BLOCKS.presetMinutes,
    )!;
    expect((minutes.element as { options: { value: string }[] }).options.map((o) => o.value)).toEqual([
      '5',
      '10',
      '15',
      '20',
      '30',
    ]);
    const days = inputById(modal({ builder: { ...DEFAULT_BUILDER, kind: 'monthly' } }), BLOCKS.presetMonthDay)!;
    const dayValues = (days.element as { options: { value: string }[] }).options.map((o) => o.value);
    expect(dayValues).toHaveLength(28);
    expect(dayValues.at(-1)).toBe('28');
  });

  it('uses a raw cron input that refreshes the preview on every character', () => {
    const view = modal({ builder: { ...DEFAULT_BUILDER, kind: 'custom', expression: '0 5 * * 1-5' } });
    const cron = inputById(view, BLOCKS.cron)!;
    expect(cron.dispatch_action).toBe(true);
    expect(cron.element).toMatchObject({
      type: 'plain_text_input',
      action_id: ACTIONS.cronInput,
      initial_value: '0 5 * * 1-5',
      dispatch_action_config: { trigger_actions_on: ['on_character_entered'] },
    });
  });

  it('stays within the 100-block limit with the largest form and the weekly builder', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`field_${i}`, { type: 'string', title: `Field ${i}` }]),
    );
    const big = Workflow.parse({
      id: 'rb-big',
      name: 'Big',
      inputSchema: JSON.stringify({ type: 'object', properties }),
    });
    const view = modal({
      runbook: big,
      spec: parseInputSchema(big.inputSchema),
      builder: { ...DEFAULT_BUILDER, kind: 'weekly' },
      notes: [':warning: note'],
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
  });

  it('keeps private_metadata small', () => {
    const raw = encodeScheduleMetadata({ r: 'a'.repeat(64), s: crypto.randomUUID(), c: 'C0123456789' });
    expect(raw.length).toBeLessThan(3000);
    expect(decodeScheduleMetadata('garbage')).toEqual({ r: null, s: null, c: null });
  });

  it('carries the schedules list an edit came from, and only an http(s) response_url', () => {
    const list = { u: 'https://hooks.slack.com/actions/T1/123/abc', r: 'rb-1' };
    const raw = encodeScheduleMetadata({ r: 'rb-1', s: 'sch-1', c: 'C1', l: list });
    expect(raw.length).toBeLessThan(3000);
    expect(decodeScheduleMetadata(raw)).toEqual({ r: 'rb-1', s: 'sch-1', c: 'C1', l: list });
    const odd = JSON.stringify({ r: 'rb-1', s: 'sch-1', c: 'C1', l: { u: 'javascript:alert(1)', r: 'rb-1' } });
    expect(decodeScheduleMetadata(odd)).toEqual({ r: 'rb-1', s: 'sch-1', c: 'C1' });
    expect(decodeScheduleMetadata(encodeScheduleMetadata({ r: 'rb-1', s: null, c: null }))).not.toHaveProperty('l');
  });
});

describe('preview', () => {
  it('shows the expression, its English and the next five runs in GMT and the person’s zone', () => {
    const block = buildCronPreviewBlock({ ...DEFAULT_BUILDER, kind: 'daily', time: '05:00' }, NOW, 'Europe/Paris');
    assertWithinLimits([block], 'modal');
    const text = block.text!.text;
    expect(text).toContain('`0 5 * * *`');
    expect(text).toContain('At 05:00, every day (GMT)');
    expect(text).toContain('GMT → your time, Europe/Paris');
    expect(text).toContain('• Mon 5 Jan 05:00 GMT  →  Mon 5 Jan 06:00 CET');
    expect(text).toContain('Fri 9 Jan 05:00 GMT');
    expect(text.match(/^• /gm)).toHaveLength(5);
  });

  it('shows GMT only for a person in UTC', () => {
    const text = previewText(modal({ builder: { ...DEFAULT_BUILDER, kind: 'hourly', minute: 7 } }));
    expect(text).toContain('`7 * * * *`');
    expect(text).toContain('*Next runs* (GMT)');
    expect(text).toContain('• Mon 5 Jan 04:07 GMT\n');
    expect(text).not.toContain('→');
  });

  it('warns about an every-minute expression', () => {
    const text = previewText(modal({ builder: { ...DEFAULT_BUILDER, kind: 'custom', expression: '* 5 * * *' } }));
    expect(text).toContain(':warning: This runs every minute from 05:00 to 05:59');
  });

  it('shows why an invalid expression is invalid', () => {
    const text = previewText(modal({ builder: { ...DEFAULT_BUILDER, kind: 'custom', expression: '61 * * * *' } }));
    expect(text).toBe(":x: The minute field '61' must be between 0 and 59.");
  });

  it('escapes what the person typed', () => {
    const text = previewText(
      modal({ builder: { ...DEFAULT_BUILDER, kind: 'custom', expression: '<!channel> * * * *' } }),
    );
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('says which detail is missing', () => {
    const text = previewText(modal({ builder: { ...DEFAULT_BUILDER, kind: 'daily', time: null } }));
    expect(text).toBe(':x: Pick a time (GMT).');
  });
});

describe('preset ⇄ cron', () => {
  const cases: Array<[string, Partial<ScheduleBuilder>]> = [
    ['*/15 * * * *', { kind: 'every_n_minutes', minutes: 15 }],
    ['7 * * * *', { kind: 'hourly', minute: 7 }],
    ['30 6 * * *', { kind: 'daily', time: '06:30' }],
    ['0 8 * * 1-5', { kind: 'weekdays', time: '08:00' }],
    ['0 8 * * 3', { kind: 'weekly', weekday: 3, time: '08:00' }],
    ['0 8 15 * *', { kind: 'monthly', monthDay: 15, time: '08:00' }],
    ['0 8 31 * *', { kind: 'custom', expression: '0 8 31 * *' }],
    ['0 5 1,15 * *', { kind: 'custom', expression: '0 5 1,15 * *' }],
    ['*/7 * * * *', { kind: 'custom', expression: '*/7 * * * *' }],
  ];
  it.each(cases)('prefills %s as its preset and writes the same expression back', (cron, expected) => {
    const builder = builderFromCron(cron);
    expect(builder).toMatchObject(expected);
    expect(cronFromBuilder(builder)).toEqual({ ok: true, expression: cron });
  });

  it('prefills the edit modal’s builder inputs from the stored expression', () => {
    const view = modal({ metadata: { r: 'rb-1', s: 'sch-1', c: null }, builder: builderFromCron('45 22 * * 5') });
    expect(shownPresetKind(view.blocks)).toBe('weekly');
    const weekday = inputById(view, BLOCKS.presetWeekday)!.element as { initial_option?: { value: string } };
    expect(weekday.initial_option?.value).toBe('5');
    expect(inputById(view, BLOCKS.presetTime)!.element).toMatchObject({ initial_time: '22:45' });
  });

  it('reports a missing detail on its own block', () => {
    expect(cronFromBuilder({ ...DEFAULT_BUILDER, kind: 'weekly', weekday: null })).toMatchObject({
      ok: false,
      blockId: BLOCKS.presetWeekday,
    });
    expect(cronFromBuilder({ ...DEFAULT_BUILDER, kind: 'custom', expression: '1 2 3' })).toMatchObject({
      ok: false,
      blockId: BLOCKS.cron,
    });
  });
});

describe('reading and refreshing the builder', () => {
  it('reads the state Slack sends for each builder input', () => {
    const builder = readScheduleBuilder({
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('monthly') },
      [BLOCKS.presetMonthDay]: { [ACTIONS.presetMonthDay]: select('12') },
      [BLOCKS.presetTime]: { [ACTIONS.presetTime]: { type: 'timepicker', selected_time: '23:15' } },
    });
    expect(builder).toMatchObject({ kind: 'monthly', monthDay: 12, time: '23:15' });
    expect(cronFromBuilder(builder)).toEqual({ ok: true, expression: '15 23 12 * *' });
  });

  it('treats a cleared or forged value as missing', () => {
    const builder = readScheduleBuilder({
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('every_n_minutes') },
      [BLOCKS.presetMinutes]: { [ACTIONS.presetMinutes]: select('7') },
    });
    expect(builder.minutes).toBeNull();
    expect(cronFromBuilder(builder)).toMatchObject({ ok: false, blockId: BLOCKS.presetMinutes });
  });

  it('switching to Custom starts from the expression of the preset that was shown', () => {
    const next = nextScheduleBuilder(
      {
        [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('custom') },
        [BLOCKS.presetWeekday]: { [ACTIONS.presetWeekday]: select('2') },
        [BLOCKS.presetTime]: { [ACTIONS.presetTime]: { type: 'timepicker', selected_time: '07:45' } },
      },
      'weekly',
    );
    expect(next).toMatchObject({ kind: 'custom', expression: '45 7 * * 2' });
  });

  it('switching between presets keeps the chosen time and fills new details with defaults', () => {
    const next = nextScheduleBuilder(
      {
        [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('weekly') },
        [BLOCKS.presetTime]: { [ACTIONS.presetTime]: { type: 'timepicker', selected_time: '07:45' } },
      },
      'daily',
    );
    expect(cronFromBuilder(next)).toEqual({ ok: true, expression: '45 7 * * 1' });
  });

  it('keeps the blocks above the builder and rebuilds the builder and preview at the end', () => {
    const view = modal({ builder: { ...DEFAULT_BUILDER, kind: 'daily', time: '05:00' } });
    const builder = nextScheduleBuilder(
      {
        [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('custom') },
        [BLOCKS.presetTime]: { [ACTIONS.presetTime]: { type: 'timepicker', selected_time: '05:00' } },
      },
      shownPresetKind(view.blocks),
    );
    const refreshed = refreshScheduleModal(
      { blocks: view.blocks, private_metadata: view.private_metadata },
      builder,
      NOW,
      'UTC',
    );
    assertWithinLimits(refreshed, 'modal');
    const formIds = spec.kind === 'fields' ? spec.fields.map((f) => f.blockId) : [];
    const ids = refreshed.blocks.map((b) => b.block_id).filter(Boolean);
    expect(ids).toEqual([
      BLOCKS.runbookPicker,
      BLOCKS.scheduleSummary,
      BLOCKS.proxy,
      ...formIds,
      BLOCKS.scheduleHeader,
      BLOCKS.preset,
      BLOCKS.cron,
      BLOCKS.cronPreview,
    ]);
    // Form blocks are the very same objects: nothing above the builder is rebuilt.
    for (const id of formIds) expect(blockById(refreshed, id)).toBe(blockById(view, id));
    expect(shownPresetKind(refreshed.blocks)).toBe('custom');
    expect(inputById(refreshed, BLOCKS.cron)!.element).toMatchObject({ initial_value: '0 5 * * *' });
    expect(previewText(refreshed)).toContain('`0 5 * * *`');
    expect(refreshed.callback_id).toBe(VIEWS.schedule);
    expect(refreshed.submit?.text).toBe('Create');
    expect(refreshed.private_metadata).toBe(view.private_metadata);
  });
});

describe('readScheduleSubmission', () => {
  it('reports every problem at once, on the block it belongs to', () => {
    const result = readScheduleSubmission(runbook, {
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('custom') },
      [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '0 25 * * *' } },
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: null } },
      field_region: { value: { type: 'plain_text_input', value: '' } },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual([BLOCKS.cron, BLOCKS.proxy, 'field_region'].sort());
    expect(result.errors[BLOCKS.cron]).toContain('hour');
  });

  it('returns the cron, proxy and params of a valid form', () => {
    const result = readScheduleSubmission(runbook, {
      [BLOCKS.preset]: { [ACTIONS.presetSelect]: select('weekdays') },
      [BLOCKS.presetTime]: { [ACTIONS.presetTime]: { type: 'timepicker', selected_time: '05:00' } },
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'p1' } } },
      field_region: { value: { type: 'plain_text_input', value: 'eu-west-1' } },
      field_password: { value: { type: 'plain_text_input', value: 's3cret' } },
    });
    expect(result).toMatchObject({
      ok: true,
      cron: '0 5 * * 1-5',
      proxyId: 'p1',
      params: { region: 'eu-west-1', password: 's3cret' },
    });
  });
});
