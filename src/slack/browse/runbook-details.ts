// /runbook show: description, version, path, categories, connectors, environments and their
// status, inputs with types and defaults, last run, approval requirement, health over the last 30 days;
// Run and Schedule buttons.
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import { categoryLabel } from '../../catalog/runbook-catalog.ts';
import type { FieldSpec, FormSpec } from '../../forms/input-schema.ts';
import type { CachedHealth } from '../../health/health-cache.ts';
import { button, type SlackMessage, when } from '../kit/common.ts';
import { healthSummary } from '../kit/health-summary.ts';
import { ACTIONS } from '../kit/ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, truncate } from '../kit/mrkdwn.ts';
import { pickValue } from '../kit/runbook-choice.ts';
import { isRunnable, runbookBadges } from '../kit/runbook-list.ts';

const KIND_LABEL: Record<FieldSpec['kind'], string> = {
  text: 'text',
  multiline: 'long text',
  number: 'number',
  integer: 'integer',
  boolean: 'yes/no',
  select: 'choice',
  external_select: 'choice',
  multi_select: 'choices',
  multi_external_select: 'choices',
  string_list: 'list',
  json: 'JSON',
  secret: 'secret',
  date: 'date',
  datetime: 'date and time',
  email: 'email',
  url: 'URL',
};

function connectorLabel(c: string): string {
  return c.replace(/^CONNECTOR_TYPE_/, '').toLowerCase();
}

export function describeInputs(spec: FormSpec): string {
  if (spec.kind === 'empty') return '_This runbook takes no input._';
  if (spec.kind === 'fallback') return `_Inputs are entered as JSON (${escapeMrkdwn(truncate(spec.reason, 200))})._`;
  return spec.fields
    .slice(0, 40)
    .map((f) => {
      const parts = [KIND_LABEL[f.kind], f.required ? 'required' : 'optional'];
      if (f.default !== undefined && !f.secret) {
        parts.push(`default \`${escapeMrkdwn(truncate(JSON.stringify(f.default), 60))}\``);
      }
      const description = f.description ? ` — ${escapeMrkdwn(truncate(f.description, 120))}` : '';
      return `• *${escapeMrkdwn(truncate(f.title, 80))}* (${parts.join(', ')})${description}`;
    })
    .concat(spec.fields.length > 40 ? [`_…and ${spec.fields.length - 40} more_`] : [])
    .join('\n');
}

/** The runbook's health as read for this answer, or why it could not be read. */
export type DetailsHealth = { health: CachedHealth; nowMs: number } | { unavailable: string };

function healthBlock(health: DetailsHealth): KnownBlock {
  const text =
    'unavailable' in health
      ? `*Health*\n_${escapeMrkdwn(truncate(health.unavailable, 500))}_`
      : healthSummary(health.health.report, health.health.fetchedAt, health.nowMs);
  return { type: 'section', block_id: 'details_health', text: mrkdwnText(text) };
}

export function buildRunbookDetails(runbook: Workflow, spec: FormSpec, health?: DetailsHealth): SlackMessage {
  const badges = runbookBadges(runbook);
  const fields = [
    `*Version*\n${escapeMrkdwn(runbook.currentVersion || '—')}`,
    `*Path*\n${escapeMrkdwn(runbook.path || '/')}`,
    `*Categories*\n${runbook.categories.map((c) => escapeMrkdwn(categoryLabel(c))).join(', ') || '—'}`,
    `*Connectors*\n${runbook.connectorTypes.map((c) => escapeMrkdwn(connectorLabel(c))).join(', ') || '—'}`,
    `*Last run*\n${when(runbook.lastRun)}`,
    `*Approval*\n${runbook.requiresApproval ? ':lock: required before each run' : 'not required'}`,
  ];
  const environments = runbook.environmentStatus.length
    ? runbook.environmentStatus
        .slice(0, 15)
        .map((e) => {
          const ready = e.status.toLowerCase() === 'ready';
          const reason = e.reason.length ? ` — ${escapeMrkdwn(truncate(e.reason.join('; '), 150))}` : '';
          return `${ready ? ':large_green_circle:' : ':red_circle:'} ${escapeMrkdwn(e.environmentName)}: ${escapeMrkdwn(e.status)}${reason}`;
        })
        .join('\n')
    : '_No environments reported._';
  const disabledReason = !isRunnable(runbook)
    ? runbook.runningDisabledByFloatingEnv
      ? 'Running is disabled because its environment is not ready.'
      : 'Running this runbook is disabled.'
    : null;

  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(runbook.name || runbook.id, 150) },
    {
      type: 'section',
      text: mrkdwnText(
        `${runbook.description ? escapeMrkdwn(truncate(runbook.description, 1500)) : '_No description_'}${badges.length ? `\n${badges.join('  ')}` : ''}`,
      ),
    },
    { type: 'section', fields: fields.map((f) => mrkdwnText(f, 2000)) },
    { type: 'section', text: mrkdwnText(`*Environments*\n${environments}`) },
    { type: 'section', text: mrkdwnText(`*Inputs*\n${describeInputs(spec)}`) },
    ...(health ? [healthBlock(health)] : []),
  ];
  if (runbook.tags.length) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwnText(
          runbook.tags
            .slice(0, 20)
            .map((t) => `\`${escapeMrkdwn(truncate(t, 40))}\``)
            .join(' '),
        ),
      ],
    });
  }
  if (disabledReason) blocks.push({ type: 'context', elements: [mrkdwnText(`:no_entry: ${disabledReason}`)] });
  blocks.push({
    type: 'actions',
    block_id: 'details_actions',
    elements: [
      ...(isRunnable(runbook) ? [button('Run', ACTIONS.runbookRun, runbook.id, { style: 'primary' })] : []),
      button('Schedule', ACTIONS.runbookSchedule, runbook.id),
      button('Schedules', `${ACTIONS.pickRunbook}_schedules`, pickValue(runbook.id, 'schedules')),
      button('Executions', `${ACTIONS.pickRunbook}_executions`, pickValue(runbook.id, 'executions')),
      button('Health', `${ACTIONS.pickRunbook}_health`, pickValue(runbook.id, 'health')),
    ],
  });
  blocks.push({ type: 'context', elements: [mrkdwnText(`id \`${escapeMrkdwn(runbook.id)}\``)] });
  return { text: `Runbook ${escapeMrkdwn(truncate(runbook.name, 200))}`, blocks };
}
