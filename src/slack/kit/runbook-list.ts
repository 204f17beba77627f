// The paged runbook browser (/runbook list): one section per runbook with badges, a row of
// actions (Run, Schedule, Details), a category filter fed by categoryCounts, Previous/Next.
import type { ActionsBlock, KnownBlock, PlainTextOption, StaticSelect } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import { type BrowsePage, type BrowseScope, categoryLabel } from '../../catalog/runbook-catalog.ts';
import type { CachedHealth } from '../../health/health-cache.ts';
import { isRunnable } from '../../runs/runnable.ts';
import { button, type SlackMessage, when } from './common.ts';
import { freshness, healthBadge } from './health-summary.ts';
import { ACTIONS } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, truncate } from './mrkdwn.ts';
import { buildChoiceBlocks } from './runbook-choice.ts';

export const LIST_PAGE_SIZE = 8;

/** State of the browser, carried in button values so paging needs no server-side session. */
export interface ListState {
  /** search words */
  w: string;
  /** scope */
  s: BrowseScope;
  /** category enum name or null */
  c: string | null;
  /** page (0-based) */
  p: number;
}

export function encodeListState(state: ListState): string {
  return JSON.stringify({ ...state, w: state.w.slice(0, 500) });
}

export function decodeListState(value: string | undefined): ListState {
  try {
    const v = JSON.parse(value ?? '{}') as Partial<ListState>;
    return {
      w: typeof v.w === 'string' ? v.w : '',
      s: v.s === 'service' || v.s === 'custom' ? v.s : 'all',
      c: typeof v.c === 'string' ? v.c : null,
      p: typeof v.p === 'number' && Number.isInteger(v.p) && v.p >= 0 ? v.p : 0,
    };
  } catch {
    return { w: '', s: 'all', c: null, p: 0 };
  }
}

export function runbookBadges(runbook: Workflow): string[] {
  const badges: string[] = [];
  if (runbook.requiresApproval) badges.push(':lock: needs approval');
  if (runbook.runningDisabled || runbook.executionDisabled || runbook.runningDisabledByFloatingEnv) {
    badges.push(':no_entry: disabled');
  }
  return badges;
}

export { isRunnable };

/** Health badges for the rows, from the cache only (by runbook name, lower case). */
export interface ListHealth {
  byName: ReadonlyMap<string, CachedHealth>;
  nowMs: number;
}

function row(runbook: Workflow, index: number, health?: CachedHealth): KnownBlock[] {
  const badges = runbookBadges(runbook);
  if (health) badges.push(healthBadge(health.report));
  const title = `*${escapeMrkdwn(truncate(runbook.name, 150))}*${badges.length ? `   ${badges.join('  ')}` : ''}`;
  const description = runbook.description ? escapeMrkdwn(truncate(runbook.description, 240)) : '_No description_';
  const tags = runbook.tags.length ? runbook.tags.slice(0, 6).map((t) => `\`${escapeMrkdwn(truncate(t, 40))}\``) : [];
  const meta = [...tags, `last run ${when(runbook.lastRun)}`].join('  ·  ');
  const actions: ActionsBlock = {
    type: 'actions',
    block_id: `row_${index}`,
    elements: [
      ...(isRunnable(runbook) ? [button('Run', ACTIONS.runbookRun, runbook.id, { style: 'primary' })] : []),
      button('Schedule', ACTIONS.runbookSchedule, runbook.id),
      button('Details', ACTIONS.runbookDetails, runbook.id),
    ],
  };
  return [{ type: 'section', text: mrkdwnText(`${title}\n${description}\n${meta}`) }, actions];
}

function categorySelect(page: BrowsePage): StaticSelect {
  const all: PlainTextOption = { text: plainText('All categories', 75), value: '*' };
  const options: PlainTextOption[] = [
    all,
    ...page.categories.slice(0, 98).map((c) => ({
      text: plainText(`${categoryLabel(c.name)} (${c.count})`, 75),
      value: c.name.slice(0, 150),
    })),
  ];
  // The applied category stays selectable (and shown as selected) when the search left none in it.
  if (page.category && !page.unknownCategory && !options.some((o) => o.value === page.category)) {
    options.push({ text: plainText(`${categoryLabel(page.category)} (0)`, 75), value: page.category.slice(0, 150) });
  }
  const initial = options.find((o) => o.value === page.category) ?? all;
  return {
    type: 'static_select',
    action_id: ACTIONS.listCategory,
    placeholder: plainText('Category', 150),
    options,
    initial_option: initial,
  };
}

export function buildRunbookList(page: BrowsePage, state: ListState, health?: ListHealth): SlackMessage {
  // "43 service runbooks matching “k8s” in SRE · page 1 of 6": the kind before the noun, then the filters.
  const kind = state.s === 'service' ? 'service ' : state.s === 'custom' ? 'custom ' : '';
  const filters = [
    state.w ? `matching “${escapeMrkdwn(truncate(state.w, 100))}”` : '',
    page.category && !page.unknownCategory ? `in ${escapeMrkdwn(categoryLabel(page.category))}` : '',
  ].filter(Boolean);
  const noun = `${page.total} ${kind}runbook${page.total === 1 ? '' : 's'}`;
  const summary = `${[noun, ...filters].join(' ')} · page ${page.page + 1} of ${page.pageCount}`;

  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText('Runbooks', 150) },
    { type: 'context', elements: [mrkdwnText(summary)] },
    {
      type: 'actions',
      // The select's payload carries only the chosen option, so the rest of the state rides in the block id.
      block_id: `list_filters:${encodeListState({ ...state, w: state.w.slice(0, 180), c: null, p: 0 })}`.slice(0, 255),
      elements: [categorySelect(page)],
    },
  ];
  if (page.unknownCategory) {
    const names = page.categories.map((c) => categoryLabel(c.name).toLowerCase().replace(/ /g, '-'));
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `:mag: There is no category “${escapeMrkdwn(truncate(page.unknownCategory, 60))}”. The categories are ${names.map((n) => `\`${escapeMrkdwn(n)}\``).join(', ')}: try \`/runbook list --category ${escapeMrkdwn(names[0] ?? 'sre')}\`, or pick one above.`,
      ),
    });
  } else if (page.items.length === 0 && page.suggestions?.length) {
    blocks.push(...buildChoiceBlocks(state.w, { kind: 'none', suggestions: page.suggestions }, 'show'));
  } else if (page.items.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwnText('No runbook matches. Try fewer words, another category, or `/runbook list` for everything.'),
    });
  }
  const shown = page.items.map((r) => health?.byName.get(r.name.trim().toLowerCase()));
  page.items.forEach((runbook, i) => {
    blocks.push({ type: 'divider' }, ...row(runbook, i, shown[i]));
  });
  const oldest = Math.min(...shown.map((h) => h?.fetchedAt ?? Number.POSITIVE_INFINITY));
  if (health && Number.isFinite(oldest)) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwnText(
          `Health badges: success rate and runs over the last 30 days, ${freshness(oldest, health.nowMs)} or later. \`/runbook health &lt;runbook&gt;\` reads one afresh.`,
        ),
      ],
    });
  }
  const nav: ActionsBlock = { type: 'actions', block_id: 'list_nav', elements: [] };
  if (page.page > 0) {
    nav.elements.push(
      button('← Previous', `${ACTIONS.listPage}_prev`, encodeListState({ ...state, p: page.page - 1 })),
    );
  }
  if (page.page + 1 < page.pageCount) {
    nav.elements.push(button('Next →', `${ACTIONS.listPage}_next`, encodeListState({ ...state, p: page.page + 1 })));
  }
  if (nav.elements.length) blocks.push({ type: 'divider' }, nav);
  return { text: summary, blocks };
}
