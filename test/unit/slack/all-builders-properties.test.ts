// Random text from the API (names, descriptions, reasons, outputs, emails, cron strings, params)
// through the builders not covered in core-builders: no mention, broadcast or link can come from
// it, and no surface breaks Slack's limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Execution, Schedule, Workflow } from '../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { computeHealth } from '../../../src/health/runbook-health.ts';
import { buildAuditList } from '../../../src/slack/audit/audit-list.ts';
import { buildExecutionList } from '../../../src/slack/executions/execution-list.ts';
import { buildFailingRunbooks, buildRunbookHealth } from '../../../src/slack/health/health-view.ts';
import { buildAppHome } from '../../../src/slack/home/app-home.ts';
import { buildApprovalNotice, buildApprovalRequest, buildRejectModal } from '../../../src/slack/kit/approval.ts';
import {
  buildExecutionStatus,
  buildOutputModal,
  parseExecutionInputs,
} from '../../../src/slack/kit/execution-status.ts';
import { checkBlocks, checkView } from '../../../src/slack/kit/limits.ts';
import { buildScheduleList } from '../../../src/slack/schedules/schedule-list.ts';
import { buildScheduleModal, DEFAULT_BUILDER } from '../../../src/slack/schedules/schedule-modal.ts';
import { buildSubscriptionList } from '../../../src/slack/subscriptions/subscription-list.ts';
import type { Approval } from '../../../src/store/store.ts';
import { mrkdwnTexts } from '../../support/block-texts.ts';

/** Every <…> token in mrkdwn must be one we made: a date, a mention of a real id, a channel link. */
function onlyOurTokens(surface: unknown) {
  for (const token of mrkdwnTexts(surface)
    .join('\n')
    .match(/<[^>]*>/g) ?? []) {
    // Channel links (from ids we stored, never from API text) cannot ping anyone.
    expect(token).toMatch(/^<(!date\^\d+\^[^|]*\|[^>]*|@U01ALICE|@U02BOB|#[CGD][A-Z0-9]+|!subteam\^S[A-Z0-9]+)>$/);
  }
}

const text = fc.string({ maxLength: 300 });

describe('every builder over random API text', () => {
  it('keeps API text inert and within limits', () => {
    fc.assert(
      fc.property(text, text, fc.string({ maxLength: 60 }), (t, u, short) => {
        const exec = Execution.parse({
          id: short || 'e1',
          workflowName: t,
          executor: u,
          reason: t,
          output: `${t}\n${u}`,
          inputs: JSON.stringify({ [short]: t }),
          executionStatus: 'EXECUTION_STATUS_FAILED',
          startTime: '2026-11-21T08:00:00Z',
          endTime: '2026-11-21T08:01:00Z',
        });
        const schedule = Schedule.parse({
          id: 's1',
          runbookId: 'r1',
          runbookName: t,
          schedule: u,
          params: JSON.stringify({ [short]: u }),
          proxyName: t,
          userEmail: u,
        });
        const runbook = Workflow.parse({ id: 'r1', name: t, description: u, inputSchema: '' });
        const approval: Approval = {
          id: 'a1',
          runbookId: 'r1',
          runbookName: t,
          proxyId: u,
          params: '{}',
          paramsMasked: JSON.stringify({ [short]: t }),
          requesterId: 'U01ALICE',
          requesterTeam: null,
          channel: 'C01OPS',
          state: 'rejected',
          decidedBy: 'U02BOB',
          reason: t,
          createdAt: 0,
          expiresAt: 1,
          decidedAt: 1,
          executionIds: [],
          error: u,
          ranAt: null,
          approversChannel: null,
          approversTs: null,
          requesterChannel: null,
          requesterTs: null,
          quorum: { count: 2, eachOf: [short] },
        };
        const healthNow = Date.parse('2026-11-22T00:00:00Z');
        const health = computeHealth(t, [exec, { ...exec, id: 'e2', executionStatus: 'EXECUTION_STATUS_SUCCEEDED' }], {
          nowMs: healthNow,
        });
        const failing = {
          reports: [health],
          seen: 1,
          fetchedAt: healthNow,
          rowsRead: 2,
          coverage: { coveredFrom: healthNow - 86_400_000, limitedBy: 'pages' as const },
        };
        const messages = [
          buildRunbookHealth({ id: 'r1', name: t }, health, healthNow, healthNow),
          buildFailingRunbooks(failing, new Map([[t.trim().toLowerCase(), 'r1']]), healthNow),
          buildExecutionList({
            page: { items: [exec, exec], nextPageToken: short, pageCount: 2, statusTable: { [t]: 1 } },
            query: { runbookQuery: t, status: null, last: null, tokens: [short] },
            runbookName: t,
            nowMs: 0,
          }),
          buildExecutionStatus({
            execution: exec,
            inputs: parseExecutionInputs(exec.inputs),
            runbookId: null,
            nowMs: 0,
          }),
          buildScheduleList({ schedules: [schedule], runbook, page: 0, now: new Date(0) }),
          buildApprovalRequest(approval, 'anyone but the requester'),
          buildApprovalNotice({ ...approval, state: 'approved', executionIds: [t.slice(0, 40)] }, '<@U02BOB>'),
          buildAuditList([
            {
              at: 0,
              userId: 'U01ALICE',
              teamId: null,
              channel: t,
              action: t,
              target: u,
              outcome: 'error',
              detail: t,
              tid: u,
            },
          ]),
          buildSubscriptionList([
            {
              channel: 'C01OPS',
              runbookId: 'r1',
              runbookName: t,
              failuresOnly: true,
              createdBy: 'U01ALICE',
              teamId: null,
              createdAt: 0,
              updatedAt: 0,
            },
          ]),
        ];
        for (const msg of messages) {
          expect(checkBlocks(msg.blocks, 'message')).toEqual([]);
          onlyOurTokens(msg.blocks);
        }
        const views = [
          buildOutputModal(exec),
          buildRejectModal('{}', t),
          buildAppHome({ executions: [exec], schedules: [schedule], now: 0 }),
          buildAppHome({
            executions: [],
            schedules: [],
            now: healthNow,
            failing,
            forecast: {
              runs: [{ scheduleId: 's1', runbookId: 'r1', runbookName: t, at: healthNow + 60_000, overlaps: true }],
              truncated: true,
              pausedCount: 1,
              unreadableCount: 0,
            },
          }),
          buildScheduleModal({
            runbook,
            spec: parseInputSchema(''),
            proxies: { options: [{ id: 'p', name: t.slice(0, 40) || 'p' }], initial: 'p' },
            builder: { ...DEFAULT_BUILDER, kind: 'custom', expression: u },
            metadata: { r: 'r1', s: null, c: 'C01OPS' },
            now: new Date(0),
            timeZone: 'UTC',
          }),
        ];
        for (const view of views) {
          expect(checkView(view)).toEqual([]);
          onlyOurTokens(view);
        }
      }),
      { numRuns: 120 },
    );
  });
});
