// The schedule modal (create and edit): runbook picker or name, proxy, the runbook's input form, then the schedule
// builder (a preset with the details it needs, or a raw cron expression) and a live preview of the next runs.
// Block and action ids of the builder never change between updates, so Slack keeps what the person typed when a
// preset change or a keystroke rebuilds the view (views.update preserves input state only for identical ids).
import type { InputBlock, KnownBlock, ModalView, PlainTextOption, SectionBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { ProxyChoices } from '../../catalog/proxy-directory.ts';
import { buildFormBlocks } from '../../forms/form-blocks.ts';
import type { FormSpec } from '../../forms/input-schema.ts';
import { validateCron } from '../../schedules/cron.ts';
import {
  cronToPreset,
  EVERY_N_MINUTES_CHOICES,
  PRESET_KINDS,
  presetToCron,
  type SchedulePreset,
} from '../../schedules/presets.ts';
import { previewCron } from '../../schedules/preview.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../kit/ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, plainText, truncate } from '../kit/mrkdwn.ts';
import { proxyBlock, runbookPickerBlock } from '../kit/run-modal.ts';

export type PresetKind = SchedulePreset['kind'];

/** What a schedule modal carries between opening, updates and submission (≤3000 chars). */
export interface ScheduleModalMetadata {
  /** runbook id (null while the picker is empty) */
  r: string | null;
  /** schedule id when editing, null when creating */
  s: string | null;
  /** channel the request came from: where the confirmation goes */
  c: string | null;
  /** the thread of a mention the form was asked for in: the confirmation goes there too */
  t?: string;
  /** the schedules list the form was opened from (Edit): redrawn in place once the edit is saved */
  l?: ListOrigin;
}

/** A schedules list message: the response_url of the click on it, and the runbook it was filtered by. */
export interface ListOrigin {
  u: string;
  r: string | null;
}

export function encodeScheduleMetadata(m: ScheduleModalMetadata): string {
  return JSON.stringify({ r: m.r, s: m.s, c: m.c, ...(m.t ? { t: m.t } : {}), ...(m.l ? { l: m.l } : {}) });
}

function listOrigin(v: unknown): ListOrigin | null {
  if (!v || typeof v !== 'object') return null;
  const l = v as Record<string, unknown>;
  if (typeof l.u !== 'string' || !/^https?:\/\//.test(l.u)) return null;
  return { u: l.u, r: typeof l.r === 'string' && l.r !== '' ? l.r : null };
}

export function decodeScheduleMetadata(raw: string | undefined): ScheduleModalMetadata {
  try {
    const v = JSON.parse(raw ?? '{}') as Partial<ScheduleModalMetadata>;
    const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
    const list = listOrigin(v.l);
    const thread = str(v.t);
    return { r: str(v.r), s: str(v.s), c: str(v.c), ...(thread ? { t: thread } : {}), ...(list ? { l: list } : {}) };
  } catch {
    return { r: null, s: null, c: null };
  }
}

/**
 * The schedule builder's inputs. Detail fields are null when the person cleared them (a missing value is a field
 * error on submit, not a silent default). Times are "HH:MM" in GMT.
 */
export interface ScheduleBuilder {
  kind: PresetKind;
  /** every_n_minutes */
  minutes: number | null;
  /** hourly: minute past the hour */
  minute: number | null;
  /** daily, weekdays, weekly, monthly */
  time: string | null;
  /** weekly: 0 = Sunday */
  weekday: number | null;
  /** monthly: 1–28 (every month has these days) */
  monthDay: number | null;
  /** custom */
  expression: string;
}

export const DEFAULT_BUILDER: ScheduleBuilder = {
  kind: 'daily',
  minutes: 15,
  minute: 0,
  time: '09:00',
  weekday: 1,
  monthDay: 1,
  expression: '',
};

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Days every month has, so "monthly on the Nth" never skips a month. */
const MAX_MONTH_DAY = 28;

const pad = (n: number) => String(n).padStart(2, '0');

/** The builder that shows `expression`: its preset when it is one, else the raw expression. */
export function builderFromCron(expression: string): ScheduleBuilder {
  const preset = cronToPreset(expression);
  const base: ScheduleBuilder = { ...DEFAULT_BUILDER, expression: expression.trim().split(/\s+/).join(' ') };
  switch (preset.kind) {
    case 'every_n_minutes':
      return { ...base, kind: preset.kind, minutes: preset.minutes };
    case 'hourly':
      return { ...base, kind: preset.kind, minute: preset.minute };
    case 'daily':
    case 'weekdays':
      return { ...base, kind: preset.kind, time: `${pad(preset.hour)}:${pad(preset.minute)}` };
    case 'weekly':
      return { ...base, kind: preset.kind, weekday: preset.weekday, time: `${pad(preset.hour)}:${pad(preset.minute)}` };
    case 'monthly':
      // Days 29–31 are not in the select; such a schedule is shown (and kept) as its raw expression.
      if (preset.day > MAX_MONTH_DAY) return { ...base, kind: 'custom' };
      return { ...base, kind: preset.kind, monthDay: preset.day, time: `${pad(preset.hour)}:${pad(preset.minute)}` };
    case 'custom':
      return { ...base, kind: 'custom', expression: preset.expression };
  }
}

export type BuilderCron = { ok: true; expression: string } | { ok: false; error: string; blockId: string };

function parseTime(time: string | null): { hour: number; minute: number } | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(time ?? '');
  if (!m) return null;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  return hour <= 23 && minute <= 59 ? { hour, minute } : null;
}

/** The builder as a SchedulePreset, or which input is missing. */
function builderPreset(
  b: ScheduleBuilder,
): { ok: true; preset: SchedulePreset } | { ok: false; error: string; blockId: string } {
  const needTime = () => parseTime(b.time);
  switch (b.kind) {
    case 'every_n_minutes':
      return b.minutes === null
        ? { ok: false, error: 'Choose how many minutes apart the runs are.', blockId: BLOCKS.presetMinutes }
        : { ok: true, preset: { kind: b.kind, minutes: b.minutes } };
    case 'hourly':
      return b.minute === null
        ? { ok: false, error: 'Choose the minute past each hour.', blockId: BLOCKS.presetHourMinute }
        : { ok: true, preset: { kind: b.kind, minute: b.minute } };
    case 'custom':
      return { ok: true, preset: { kind: 'custom', expression: b.expression } };
    default: {
      const time = needTime();
      if (!time) return { ok: false, error: 'Pick a time (GMT).', blockId: BLOCKS.presetTime };
      if (b.kind === 'daily' || b.kind === 'weekdays') return { ok: true, preset: { kind: b.kind, ...time } };
      if (b.kind === 'weekly') {
        return b.weekday === null
          ? { ok: false, error: 'Choose a day of the week.', blockId: BLOCKS.presetWeekday }
          : { ok: true, preset: { kind: b.kind, weekday: b.weekday, ...time } };
      }
      return b.monthDay === null
        ? { ok: false, error: 'Choose a day of the month.', blockId: BLOCKS.presetMonthDay }
        : { ok: true, preset: { kind: 'monthly', day: b.monthDay, ...time } };
    }
  }
}

/** The cron expression the builder describes, validated; an error names the block to show it on. */
export function cronFromBuilder(b: ScheduleBuilder): BuilderCron {
  const preset = builderPreset(b);
  if (!preset.ok) return preset;
  let expression: string;
  try {
    expression = presetToCron(preset.preset);
  } catch (err) {
    return { ok: false, error: (err as Error).message, blockId: detailBlockOf(b.kind) };
  }
  const check = validateCron(expression);
  if (!check.ok)
    return { ok: false, error: check.error, blockId: b.kind === 'custom' ? BLOCKS.cron : detailBlockOf(b.kind) };
  return { ok: true, expression: check.expression };
}

function detailBlockOf(kind: PresetKind): string {
  switch (kind) {
    case 'every_n_minutes':
      return BLOCKS.presetMinutes;
    case 'hourly':
      return BLOCKS.presetHourMinute;
    case 'custom':
      return BLOCKS.cron;
    default:
      return BLOCKS.presetTime;
  }
}

type StateValues = Record<string, Record<string, unknown>>;

function elementState(values: StateValues, blockId: string, actionId: string): Record<string, unknown> | null {
  const block = values[blockId];
  const state = block && typeof block === 'object' ? block[actionId] : undefined;
  return state && typeof state === 'object' ? (state as Record<string, unknown>) : null;
}

function selectedValue(values: StateValues, blockId: string, actionId: string): string | null {
  const option = elementState(values, blockId, actionId)?.selected_option as { value?: unknown } | null | undefined;
  return typeof option?.value === 'string' ? option.value : null;
}

function intOrNull(text: string | null): number | null {
  return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}

const PRESET_KIND_NAMES = PRESET_KINDS.map((p) => p.kind);

/**
 * Reads the builder from view.state.values. Blocks that are not in the view keep `previous`'s values, so a detail
 * chosen for one preset carries over to the next (the time of "Every day" stays when switching to "Every week").
 */
export function readScheduleBuilder(values: StateValues, previous: ScheduleBuilder = DEFAULT_BUILDER): ScheduleBuilder {
  const has = (blockId: string) => Object.hasOwn(values, blockId);
  const kindValue = selectedValue(values, BLOCKS.preset, ACTIONS.presetSelect);
  const kind = PRESET_KIND_NAMES.includes(kindValue as PresetKind) ? (kindValue as PresetKind) : previous.kind;
  const out: ScheduleBuilder = { ...previous, kind };
  if (has(BLOCKS.presetMinutes)) {
    const n = intOrNull(selectedValue(values, BLOCKS.presetMinutes, ACTIONS.presetMinutes));
    out.minutes = n !== null && (EVERY_N_MINUTES_CHOICES as readonly number[]).includes(n) ? n : null;
  }
  if (has(BLOCKS.presetHourMinute)) {
    const n = intOrNull(selectedValue(values, BLOCKS.presetHourMinute, ACTIONS.presetHourMinute));
    out.minute = n !== null && n <= 59 ? n : null;
  }
  if (has(BLOCKS.presetTime)) {
    const time = elementState(values, BLOCKS.presetTime, ACTIONS.presetTime)?.selected_time;
    out.time = typeof time === 'string' && parseTime(time) ? time : null;
  }
  if (has(BLOCKS.presetWeekday)) {
    const n = intOrNull(selectedValue(values, BLOCKS.presetWeekday, ACTIONS.presetWeekday));
    out.weekday = n !== null && n <= 6 ? n : null;
  }
  if (has(BLOCKS.presetMonthDay)) {
    const n = intOrNull(selectedValue(values, BLOCKS.presetMonthDay, ACTIONS.presetMonthDay));
    out.monthDay = n !== null && n >= 1 && n <= MAX_MONTH_DAY ? n : null;
  }
  if (has(BLOCKS.cron)) {
    const text = elementState(values, BLOCKS.cron, ACTIONS.cronInput)?.value;
    out.expression = typeof text === 'string' ? text : '';
  }
  return out;
}

/**
 * The builder after a change in the modal: `values` are the new state, `shownKind` is the preset the view showed
 * before the change. Switching to "Custom" starts from the expression of the preset that was shown, so the person
 * edits a working expression instead of an empty box; a detail the new preset needs but was cleared gets its default.
 */
export function nextScheduleBuilder(values: StateValues, shownKind: PresetKind): ScheduleBuilder {
  const after = readScheduleBuilder(values, { ...DEFAULT_BUILDER, kind: shownKind });
  if (after.kind === shownKind) return after;
  const filled: ScheduleBuilder = {
    ...after,
    minutes: after.minutes ?? DEFAULT_BUILDER.minutes,
    minute: after.minute ?? DEFAULT_BUILDER.minute,
    time: after.time ?? DEFAULT_BUILDER.time,
    weekday: after.weekday ?? DEFAULT_BUILDER.weekday,
    monthDay: after.monthDay ?? DEFAULT_BUILDER.monthDay,
  };
  if (after.kind === 'custom' && !Object.hasOwn(values, BLOCKS.cron)) {
    // The detail values in `values` are still those of the preset that was shown.
    const shown = cronFromBuilder({ ...after, kind: shownKind });
    filled.expression = shown.ok ? shown.expression : '';
  }
  return filled;
}

/** The preset a built view shows (its select's initial option), read back from the view's blocks. */
export function shownPresetKind(blocks: unknown[]): PresetKind {
  for (const block of blocks) {
    const b = block as { block_id?: string; element?: { initial_option?: { value?: string } } };
    if (b?.block_id === BLOCKS.preset) {
      const value = b.element?.initial_option?.value;
      if (PRESET_KIND_NAMES.includes(value as PresetKind)) return value as PresetKind;
    }
  }
  return DEFAULT_BUILDER.kind;
}

function option(text: string, value: string): PlainTextOption {
  return { text: plainText(text, 75), value };
}

function select(
  blockId: string,
  actionId: string,
  label: string,
  options: PlainTextOption[],
  selected: string | null,
  hint?: string,
): InputBlock {
  const initial = options.find((o) => o.value === selected);
  return {
    type: 'input',
    block_id: blockId,
    dispatch_action: true,
    label: plainText(label, 2000),
    ...(hint ? { hint: plainText(hint, 2000) } : {}),
    element: {
      type: 'static_select',
      action_id: actionId,
      placeholder: plainText('Choose', 150),
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

function timeBlock(time: string | null): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.presetTime,
    dispatch_action: true,
    label: plainText('At (GMT)', 2000),
    // Slack's timepicker shows the person's local clock, but the scheduler fires in GMT: say so plainly.
    hint: plainText(
      'Pick the time in GMT (UTC), not your local time: the Runbook API runs schedules in GMT. The preview below shows both.',
      2000,
    ),
    element: {
      type: 'timepicker',
      action_id: ACTIONS.presetTime,
      timezone: 'UTC',
      placeholder: plainText('HH:MM in GMT', 150),
      ...(parseTime(time) ? { initial_time: time! } : {}),
    },
  };
}

/** The builder's detail inputs for its preset. */
function detailBlocks(b: ScheduleBuilder): InputBlock[] {
  switch (b.kind) {
    case 'every_n_minutes':
      return [
        select(
          BLOCKS.presetMinutes,
          ACTIONS.presetMinutes,
          'Every',
          EVERY_N_MINUTES_CHOICES.map((n) => option(`${n} minutes`, String(n))),
          b.minutes === null ? null : String(b.minutes),
        ),
      ];
    case 'hourly':
      return [
        select(
          BLOCKS.presetHourMinute,
          ACTIONS.presetHourMinute,
          'At minute',
          Array.from({ length: 60 }, (_, m) => option(`:${pad(m)} past the hour`, String(m))),
          b.minute === null ? null : String(b.minute),
        ),
      ];
    case 'daily':
    case 'weekdays':
      return [timeBlock(b.time)];
    case 'weekly':
      return [
        select(
          BLOCKS.presetWeekday,
          ACTIONS.presetWeekday,
          'On',
          // Monday first, as people plan weeks; values are cron's day numbers (0 = Sunday).
          [1, 2, 3, 4, 5, 6, 0].map((d) => option(WEEKDAYS[d]!, String(d))),
          b.weekday === null ? null : String(b.weekday),
          'Days are GMT days.',
        ),
        timeBlock(b.time),
      ];
    case 'monthly':
      return [
        select(
          BLOCKS.presetMonthDay,
          ACTIONS.presetMonthDay,
          'On day',
          Array.from({ length: MAX_MONTH_DAY }, (_, i) => option(ordinal(i + 1), String(i + 1))),
          b.monthDay === null ? null : String(b.monthDay),
          'Days 29–31 are not offered because some months do not have them; use a custom expression for those.',
        ),
        timeBlock(b.time),
      ];
    case 'custom':
      return [
        {
          type: 'input',
          block_id: BLOCKS.cron,
          dispatch_action: true,
          label: plainText('Cron expression (GMT)', 2000),
          hint: plainText(
            'Five fields: minute hour day-of-month month day-of-week, in GMT. Example: 0 5 * * 1-5 is 05:00 GMT on weekdays.',
            2000,
          ),
          element: {
            type: 'plain_text_input',
            action_id: ACTIONS.cronInput,
            placeholder: plainText('0 5 * * *', 150),
            max_length: 200,
            dispatch_action_config: { trigger_actions_on: ['on_character_entered'] },
            ...(b.expression.trim() ? { initial_value: truncate(b.expression, 200) } : {}),
          },
        },
      ];
  }
}

function ordinal(n: number): string {
  const suffix =
    n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** The live preview: the expression, its English, warnings, and the next five runs in GMT and the person's zone. */
export function buildCronPreviewBlock(b: ScheduleBuilder, now: Date, timeZone: string): SectionBlock {
  const cron = cronFromBuilder(b);
  let text: string;
  if (!cron.ok) {
    text = `:x: ${escapeMrkdwn(truncate(cron.error, 600))}`;
  } else {
    const preview = previewCron(cron.expression, { now, timeZone, count: 5 });
    if (!preview.ok) {
      text = `:x: ${escapeMrkdwn(truncate(preview.error ?? 'This schedule is not valid.', 600))}`;
    } else {
      const local = preview.timeZone !== 'UTC';
      const lines = [
        `${inlineCode(cron.expression)}  ${escapeMrkdwn(preview.description ?? '')}`,
        ...preview.warnings.slice(0, 3).map((w) => `:warning: ${escapeMrkdwn(truncate(w, 400))}`),
        local ? `*Next runs* (GMT → your time, ${escapeMrkdwn(preview.timeZone)})` : '*Next runs* (GMT)',
        ...preview.nextRunsGmt.map((gmt, i) =>
          local
            ? `• ${escapeMrkdwn(gmt)}  →  ${escapeMrkdwn(preview.nextRunsLocal[i] ?? '')}`
            : `• ${escapeMrkdwn(gmt)}`,
        ),
      ];
      if (preview.nextRunsGmt.length === 0) lines.push('_This expression has no upcoming runs._');
      text = lines.join('\n');
    }
  }
  return { type: 'section', block_id: BLOCKS.cronPreview, text: mrkdwnText(text) };
}

/** Everything below the form: header, preset, its details, preview. Always the last blocks of the view. */
export function buildScheduleBuilderBlocks(b: ScheduleBuilder, now: Date, timeZone: string): KnownBlock[] {
  const kinds = PRESET_KINDS.map((p) => option(p.label, p.kind));
  return [
    {
      type: 'section',
      block_id: BLOCKS.scheduleHeader,
      text: mrkdwnText('*When it runs* — schedules run in GMT'),
    },
    select(BLOCKS.preset, ACTIONS.presetSelect, 'Repeat', kinds, b.kind),
    ...detailBlocks(b),
    buildCronPreviewBlock(b, now, timeZone),
  ];
}

const BUILDER_BLOCK_IDS = new Set<string>([
  BLOCKS.scheduleHeader,
  BLOCKS.preset,
  BLOCKS.presetMinutes,
  BLOCKS.presetHourMinute,
  BLOCKS.presetTime,
  BLOCKS.presetWeekday,
  BLOCKS.presetMonthDay,
  BLOCKS.cron,
  BLOCKS.cronPreview,
]);

export interface ScheduleModalInput {
  /** null: picker only (bare `/runbook schedule`). */
  runbook: Workflow | null;
  spec: FormSpec | null;
  proxies: ProxyChoices;
  proxyId?: string | null;
  /** Form values to show (a schedule's params on edit, a draft after a failed save); secrets are never shown. */
  prefill?: Record<string, unknown>;
  builder: ScheduleBuilder;
  metadata: ScheduleModalMetadata;
  now: Date;
  /** The person's IANA zone, for the preview; unknown → UTC. */
  timeZone: string;
  /** The person's Slack time zone, named under date-time pickers (as on the run form). */
  fieldTimeZone?: { id: string; label: string } | null;
  /** Extra lines above the form, already escaped mrkdwn. */
  notes?: string[];
}

function shell(metadata: ScheduleModalMetadata, blocks: KnownBlock[]): ModalView {
  const editing = metadata.s !== null;
  return {
    type: 'modal',
    callback_id: VIEWS.schedule,
    title: plainText(editing ? 'Edit schedule' : 'New schedule', 24),
    close: plainText('Cancel', 24),
    // Slack requires a submit button on any view with inputs; submitting before a runbook is picked is answered
    // with an error on the picker.
    submit: plainText(editing ? 'Save' : 'Create', 24),
    private_metadata: encodeScheduleMetadata(metadata),
    blocks,
  };
}

export function buildScheduleModal(input: ScheduleModalInput): ModalView {
  const { runbook, spec, metadata } = input;
  const editing = metadata.s !== null;
  const blocks: KnownBlock[] = [];
  if (!editing) blocks.push(runbookPickerBlock(runbook));
  if (!runbook || !spec) {
    blocks.push({
      type: 'context',
      block_id: BLOCKS.scheduleSummary,
      elements: [mrkdwnText('Pick a runbook to see its form and choose when it runs.')],
    });
    return shell(metadata, blocks);
  }
  const name = escapeMrkdwn(truncate(runbook.name || runbook.id, 200));
  const description = runbook.description ? escapeMrkdwn(truncate(runbook.description, 600)) : '';
  const lines = [
    ...(editing ? [`*${name}*`] : []),
    ...(description ? [description] : []),
    ...(spec.kind === 'empty' ? ['_This runbook takes no input._'] : []),
    ...(input.notes ?? []),
  ];
  if (lines.length > 0) {
    blocks.push({ type: 'section', block_id: BLOCKS.scheduleSummary, text: mrkdwnText(lines.join('\n')) });
  }
  blocks.push(proxyBlock(input.proxies, input.proxyId ?? null), { type: 'divider' });
  blocks.push(...buildFormBlocks(spec, input.prefill, input.fieldTimeZone ?? null));
  if (spec.kind !== 'empty') blocks.push({ type: 'divider' });
  blocks.push(...buildScheduleBuilderBlocks(input.builder, input.now, input.timeZone));
  return shell(metadata, blocks);
}

/**
 * The same view after a change to the schedule builder: every block above the builder is kept as Slack sent it
 * (the form is not rebuilt, so no API call per keystroke), the builder and preview are rebuilt from `builder`.
 */
export function refreshScheduleModal(
  view: { blocks: unknown[]; private_metadata?: string },
  builder: ScheduleBuilder,
  now: Date,
  timeZone: string,
): ModalView {
  const metadata = decodeScheduleMetadata(view.private_metadata);
  const kept = view.blocks.filter((block) => {
    const id = (block as { block_id?: unknown } | null)?.block_id;
    return !(typeof id === 'string' && BUILDER_BLOCK_IDS.has(id));
  }) as KnownBlock[];
  // Without a runbook the view is the bare picker, which has no builder to refresh.
  return shell(metadata, metadata.r === null ? kept : [...kept, ...buildScheduleBuilderBlocks(builder, now, timeZone)]);
}
