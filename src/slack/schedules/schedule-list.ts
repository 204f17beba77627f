// The schedules list (/runbook schedules [runbook]): one entry per schedule with its cron in English, the next
// run, proxy, owner, masked params and Edit / Pause / Skip next run / Delete (confirmed) / Run now — a paused one with its real
// expression, who paused it and when, and Resume; paged so a message stays ≤50 blocks.
import type { ActionsBlock, KnownBlock } from '@slack/types';
import type { Schedule, Workflow } from '../../api/schemas.ts';
import { isRecord, parseInputSchema } from '../../forms/input-schema.ts';
import { maskSecretsAndEchoes } from '../../forms/secret-values.ts';
import { SKIP_MARGIN_MS } from '../../runs/schedule-pauses.ts';
import { cronWarnings, describeCron, nextRuns, validateCron } from '../../schedules/cron.ts';
import type { SchedulePause } from '../../store/store.ts';
import { button, confirmDialog, type SlackMessage, when } from '../kit/common.ts';
import { ACTIONS, COMMAND } from '../kit/ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, plainText, slackDate, truncate, userMention } from '../kit/mrkdwn.ts';
import { commandArgument, runbookArgument } from '../kit/parse-command.ts';

/** 3 blocks per schedule: 12 of them plus header, summary, notice and navigation stay well under 50. */
export const SCHEDULES_PAGE_SIZE = 12;

/** What the Edit / Delete / Run now buttons carry: the schedule, and the runbook the list was filtered to. */
export interface ScheduleRef {
  id: string;
  /** runbook id of a filtered list, so a refresh after Delete shows the same list */
  r: string | null;
  /**
   * Pause, Skip and Resume only: which drawing of the list the button belongs to (its time, base 36). The
   * list is redrawn in place, so this, not the message, makes each drawn button a click of its own.
   */
  n?: string;
}

export function encodeScheduleRef(ref: ScheduleRef): string {
  return JSON.stringify(ref);
}

/** Accepts the JSON form and, for buttons built elsewhere, a bare schedule id. */
export function decodeScheduleRef(value: string | undefined): ScheduleRef | null {
  const raw = (value ?? '').trim();
  if (raw === '') return null;
  if (!raw.startsWith('{')) return { id: raw, r: null };
  try {
    const v = JSON.parse(raw) as Partial<ScheduleRef>;
    if (typeof v.id === 'string' && v.id !== '') {
      return { id: v.id, r: typeof v.r === 'string' ? v.r : null, ...(typeof v.n === 'string' ? { n: v.n } : {}) };
    }
  } catch {
    // fall through
  }
  return null;
}

/** Paging state of the list (button value of schedulesPage). */
export interface SchedulesPageState {
  runbookId: string | null;
  page: number;
}

export function encodeSchedulesPage(state: SchedulesPageState): string {
  return JSON.stringify(state);
}

export function decodeSchedulesPage(value: string | undefined): SchedulesPageState {
  try {
    const v = JSON.parse(value ?? '{}') as Partial<SchedulesPageState>;
    return {
      runbookId: typeof v.runbookId === 'string' ? v.runbookId : null,
      page: typeof v.page === 'number' && Number.isInteger(v.page) && v.page >= 0 ? v.page : 0,
    };
  } catch {
    return { runbookId: null, page: 0 };
  }
}

export interface ScheduleListInput {
  /** Every schedule to list (already filtered to the runbook, when there is one). */
  schedules: Schedule[];
  /** The runbook the list is filtered to, or null for all schedules. */
  runbook: Pick<Workflow, 'id' | 'name'> | null;
  /** 0-based; clamped to the last page. */
  page: number;
  /** For next runs; builders never read the clock. */
  now: Date;
  /**
   * Input schemas by runbook id, used to mask params of schedules that carry no inputSchema of their own.
   * Without any schema, only parameter names are shown: an unknown parameter may be a secret.
   */
  schemas?: ReadonlyMap<string, string>;
  /** One line (already escaped mrkdwn) shown above the list, e.g. "Deleted the schedule of …". */
  notice?: string | null;
  /** Schedule id → Slack user id of whoever created it in Slack (the API only knows the key's user). */
  owners?: ReadonlyMap<string, string>;
  /** Proxy id → the directory's display name, so a proxy reads the same here as on cards. */
  proxyNames?: ReadonlyMap<string, string>;
  /** Schedule id → its pause: shown with its real expression, who paused it and when, and Resume. */
  pauses?: ReadonlyMap<string, SchedulePause>;
}

/** The next run of `expression` after `now`, or null when the expression is not valid five-field cron. */
export function nextRunOf(expression: string, now: Date): Date | null {
  if (!validateCron(expression).ok) return null;
  return nextRuns(expression, 1, now)[0] ?? null;
}

/** A short "name: value" summary of a schedule's params with secrets masked; escaped mrkdwn. */
export function summarizeParams(
  schedule: Pick<Schedule, 'params' | 'inputSchema' | 'runbookId'>,
  schemas?: ReadonlyMap<string, string>,
): string {
  const text = schedule.params.trim();
  if (text === '' || text === '{}') return '_no parameters_';
  let params: unknown;
  try {
    params = JSON.parse(text);
  } catch {
    return '_parameters could not be read_';
  }
  if (!isRecord(params)) return '_parameters could not be read_';
  const entries = Object.entries(params);
  if (entries.length === 0) return '_no parameters_';
  const schemaText = schedule.inputSchema.trim() || schemas?.get(schedule.runbookId)?.trim() || '';
  const spec = schemaText === '' ? null : parseInputSchema(schemaText);
  if (spec === null || (spec.kind === 'fallback' && spec.schema === null)) {
    // No schema to tell secrets apart: names only, never values.
    const names = entries.slice(0, 10).map(([k]) => inlineCode(truncate(k, 40)));
    const more = entries.length > 10 ? ` and ${entries.length - 10} more` : '';
    return `${names.join(', ')}${more} _(values hidden: the input schema is unknown)_`;
  }
  const masked = maskSecretsAndEchoes(spec, params);
  const shown = Object.entries(masked)
    .slice(0, 10)
    .map(([k, v]) => {
      const value = typeof v === 'string' ? v : JSON.stringify(v);
      return `${escapeMrkdwn(truncate(k, 40))}=${inlineCode(truncate(value ?? 'null', 60))}`;
    });
  const more = entries.length > 10 ? ` _and ${entries.length - 10} more_` : '';
  return `${shown.join('  ')}${more}`;
}

/** Who paused a schedule and when (escaped mrkdwn); `pausing` / `resuming` are said as under way. */
export function pausedLine(pause: SchedulePause): string {
  const date = (ms: number) => slackDate(Math.floor(ms / 1000), `${new Date(ms).toISOString().slice(0, 16)} UTC`);
  const state =
    pause.state === 'paused' ? 'Paused' : pause.state === 'pausing' ? 'Being paused' : 'Being resumed (paused)';
  if (pause.freeze !== null) {
    const freeze = escapeMrkdwn(truncate(pause.freeze, 80));
    return `:snowflake: *${state}* by the change freeze *${freeze}* ${date(pause.pausedAt)}  ·  resumes by itself when it ends (Pause keeps it paused after)`;
  }
  const line = `:double_vertical_bar: *${state}* by ${userMention(pause.pausedBy)} ${date(pause.pausedAt)}`;
  if (pause.resumeAt === null) return `${line}  ·  no runs until resumed`;
  return `${line}  ·  skipping the run due ${date(pause.resumeAt - SKIP_MARGIN_MS)}; resumes by itself after it`;
}

function scheduleLines(
  listed: Schedule,
  now: Date,
  schemas?: ReadonlyMap<string, string>,
  owners?: ReadonlyMap<string, string>,
  proxyNames?: ReadonlyMap<string, string>,
  pause?: SchedulePause,
): string {
  // A paused schedule's API copy holds an expression that never fires; the real one is the pause's.
  const schedule = pause ? { ...listed, schedule: pause.cron } : listed;
  const name = escapeMrkdwn(truncate(schedule.runbookName || schedule.runbookId || 'Unnamed runbook', 150));
  const cron = inlineCode(truncate(schedule.schedule || ' ', 100));
  const check = validateCron(schedule.schedule);
  const lines = [`*${name}*`];
  if (pause) {
    lines.push(`${cron}  ${check.ok ? escapeMrkdwn(describeCron(check.expression)) : ''}`.trimEnd());
    lines.push(`${pausedLine(pause)}  ·  last run ${when(schedule.lastRun)}`);
  } else if (check.ok) {
    lines.push(`${cron}  ${escapeMrkdwn(describeCron(check.expression))}`);
    for (const warning of cronWarnings(check.expression).slice(0, 2)) {
      lines.push(`:warning: ${escapeMrkdwn(truncate(warning, 300))}`);
    }
    const next = nextRunOf(check.expression, now);
    const nextText = next
      ? slackDate(Math.floor(next.getTime() / 1000), `${next.toISOString().replace('T', ' ').slice(0, 16)} UTC`)
      : 'never';
    lines.push(`Next run ${nextText}  ·  last run ${when(schedule.lastRun)}`);
  } else {
    lines.push(`${cron}  :warning: ${escapeMrkdwn(truncate(check.error, 300))} Edit it to fix the expression.`);
    lines.push(`Last run ${when(schedule.lastRun)}`);
  }
  const proxy = proxyNames?.get(schedule.proxyId) || schedule.proxyName || schedule.proxyId;
  const slackOwner = owners?.get(schedule.id);
  const owner = slackOwner
    ? userMention(slackOwner)
    : schedule.userEmail
      ? escapeMrkdwn(truncate(schedule.userEmail, 100))
      : 'unknown';
  lines.push(`Proxy ${proxy ? inlineCode(truncate(proxy, 80)) : '_none_'}  ·  owner ${owner}`);
  lines.push(`Params: ${truncate(summarizeParams(schedule, schemas), 900)}`);
  return lines.join('\n');
}

function scheduleBlocks(schedule: Schedule, index: number, input: ScheduleListInput): KnownBlock[] {
  const ref = encodeScheduleRef({ id: schedule.id, r: input.runbook?.id ?? null });
  const drawn = encodeScheduleRef({
    id: schedule.id,
    r: input.runbook?.id ?? null,
    n: input.now.getTime().toString(36),
  });
  const name = truncate(schedule.runbookName || schedule.runbookId || 'this runbook', 120);
  const paused = input.pauses?.get(schedule.id);
  const actions: ActionsBlock = {
    type: 'actions',
    block_id: `schedule_${index}`,
    elements: [
      // A paused schedule is resumed before it is edited (the API holds the never-firing expression).
      paused
        ? button('Resume', ACTIONS.scheduleResume, drawn, { style: 'primary' })
        : button('Edit', ACTIONS.scheduleEdit, ref),
      ...(paused
        ? []
        : [button('Pause', ACTIONS.schedulePause, drawn), button('Skip next run', ACTIONS.scheduleSkip, drawn)]),
      button('Run now', ACTIONS.scheduleRunNow, ref),
      button('Delete', ACTIONS.scheduleDelete, ref, {
        style: 'danger',
        confirm: confirmDialog(
          'Delete schedule?',
          `Delete the schedule of ${name} (${truncate(paused?.cron ?? schedule.schedule, 100)})? Runs already started are not affected.`,
          'Delete',
        ),
      }),
    ],
  };
  return [
    { type: 'divider' },
    {
      type: 'section',
      text: mrkdwnText(scheduleLines(schedule, input.now, input.schemas, input.owners, input.proxyNames, paused)),
    },
    actions,
  ];
}

function emptyText(runbook: ScheduleListInput['runbook']): string {
  if (runbook) {
    const name = escapeMrkdwn(truncate(runbook.name || runbook.id, 150));
    const typed = escapeMrkdwn(commandArgument(runbookArgument(runbook)));
    return `*${name}* has no schedules yet. Create one with *New schedule* below or \`${COMMAND} schedule ${typed}\`.`;
  }
  return `There are no schedules yet. Create one with \`${COMMAND} schedule &lt;runbook&gt;\`, or press *Schedule* on a runbook in \`${COMMAND} list\`.`;
}

export function buildScheduleList(input: ScheduleListInput): SlackMessage {
  const total = input.schedules.length;
  const pageCount = Math.max(1, Math.ceil(total / SCHEDULES_PAGE_SIZE));
  const page = Math.min(Math.max(0, Math.floor(input.page)), pageCount - 1);
  const items = input.schedules.slice(page * SCHEDULES_PAGE_SIZE, (page + 1) * SCHEDULES_PAGE_SIZE);
  const of = input.runbook ? ` of ${input.runbook.name || input.runbook.id}` : '';
  const summary = `${total} schedule${total === 1 ? '' : 's'}${of}`;
  const paging = pageCount > 1 ? ` · page ${page + 1} of ${pageCount}` : '';

  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: plainText(input.runbook ? `Schedules of ${input.runbook.name || input.runbook.id}` : 'Schedules', 150),
    },
    {
      type: 'context',
      elements: [
        mrkdwnText(
          `${escapeMrkdwn(truncate(summary, 300))}${paging} · schedules run in GMT; dates below show in your time zone`,
        ),
      ],
    },
  ];
  if (input.notice) blocks.push({ type: 'section', text: mrkdwnText(input.notice) });
  if (total === 0) blocks.push({ type: 'section', text: mrkdwnText(emptyText(input.runbook)) });
  items.forEach((schedule, i) => {
    blocks.push(...scheduleBlocks(schedule, i, input));
  });

  const nav: ActionsBlock = { type: 'actions', block_id: 'schedules_nav', elements: [] };
  const runbookId = input.runbook?.id ?? null;
  if (page > 0) {
    nav.elements.push(
      button('← Previous', `${ACTIONS.schedulesPage}_prev`, encodeSchedulesPage({ runbookId, page: page - 1 })),
    );
  }
  if (page + 1 < pageCount) {
    nav.elements.push(
      button('Next →', `${ACTIONS.schedulesPage}_next`, encodeSchedulesPage({ runbookId, page: page + 1 })),
    );
  }
  if (input.runbook)
    nav.elements.push(button('New schedule', ACTIONS.runbookSchedule, input.runbook.id, { style: 'primary' }));
  if (nav.elements.length > 0) blocks.push({ type: 'divider' }, nav);
  return { text: escapeMrkdwn(truncate(`${summary}${paging}`, 3000)), blocks };
}
