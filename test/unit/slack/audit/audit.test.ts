// The audit feature: `/runbook audit [n]` called as the command router calls it, over the real use case
// (the policy's `audit` rule decides, and a refusal is audited like every other), and its builder.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { showAudit } from '../../../../src/slack/audit/audit.ts';
import { buildAuditList, shortDetail } from '../../../../src/slack/audit/audit-list.ts';
import type { AuditEntry } from '../../../../src/store/store.ts';
import { TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  at: Date.parse('2026-11-21T08:00:00Z'),
  userId: 'U01ALICE',
  teamId: 'T01',
  channel: 'C01OPS',
  action: 'run.start',
  target: 'Scale Kubernetes Deployment (rb-1)',
  outcome: 'ok',
  detail: null,
  tid: null,
  ...over,
});

describe('/runbook audit', () => {
  it('shows the latest entries to a person the policy lets read the trail', async () => {
    await env.store.audit.append(entry({ detail: 'executions e-1; via form', at: Date.now() }));
    await showAudit(env.context('U01ALICE'), 5);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/^Audit trail \(latest \d\)$/);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain('executions e-1; via form');
  });

  it('refuses someone the policy does not let read it, with the rule’s sentence, audited as audit.read', async () => {
    await showAudit(env.context('U02BOB'), 5);
    expect(env.replies).toHaveLength(1);
    const told = env.replies[0]!.text;
    expect(told).toMatch(/You may not/);
    expect(JSON.stringify(env.replies[0]!.blocks)).not.toContain('Audit trail');
    const [last] = await env.audit(1);
    expect(last).toMatchObject({
      userId: 'U02BOB',
      channel: 'C01OPS',
      action: 'audit.read',
      target: 'the audit trail',
      outcome: 'denied',
      tid: null,
    });
    expect(told).toContain(last!.detail!);
  });
});

describe('buildAuditList', () => {
  it('escapes what came from outside and keeps a long record’s entry point', () => {
    const inputs = JSON.stringify({ note: 'x'.repeat(400) });
    const long = `executions e-1; proxy proxy-dev; inputs ${inputs}; via approval (approved by U02BOB)`;
    const text = JSON.stringify(
      buildAuditList([entry({ detail: long }), entry({ target: '<!channel> *bold*', outcome: 'denied' })]).blocks,
    );
    expect(text).toContain('; via approval (approved by U02BOB)_');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('cuts a detail to 200 characters, the entry point kept whole', () => {
    const kept = shortDetail(`${'a'.repeat(300)}; via workflow-step`);
    expect(Array.from(kept)).toHaveLength(200);
    expect(kept.endsWith('…; via workflow-step')).toBe(true);
    expect(shortDetail('short; via form')).toBe('short; via form');
    // Without an entry point the end is what is cut.
    expect(shortDetail('b'.repeat(300))).toBe(`${'b'.repeat(199)}…`);
  });
});
