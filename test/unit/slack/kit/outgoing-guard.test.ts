// The outgoing guard: whatever a builder put together, what reaches Slack carries no <!…>, <@…>, <#…>
// or <http…> that the bot's helpers did not make — in the top-level `text` fallback (which Slack reads
// for notifications) as in blocks — while the mentions the bot means (helpers over validated ids, and
// sealed mentions such as the approvers in a denial) stay live.
import type { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Execution, Workflow } from '../../../../src/api/schemas.ts';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { mention, plainMentions } from '../../../../src/mentions.ts';
import { describeApprovers } from '../../../../src/policy/policy.ts';
import { buildRunbookDetails } from '../../../../src/slack/browse/runbook-details.ts';
import { errorMessage, noticeMessage } from '../../../../src/slack/kit/common.ts';
import { buildResultCard, buildRunningCard } from '../../../../src/slack/kit/execution-card.ts';
import { registerOutgoingGuard } from '../../../../src/slack/kit/guard-outgoing.ts';
import { escapeMrkdwn, isOurToken, slackDate, userMention } from '../../../../src/slack/kit/mrkdwn.ts';
import { guardOutgoing } from '../../../../src/slack/kit/outgoing-guard.ts';
import { replyText } from '../../../../src/watch/result-notice.ts';
import { mrkdwnTexts } from '../../../support/block-texts.ts';

const HOSTILE = '<!channel> <!here> <!everyone> <@U02BOB> <#C02DEPLOYS> <http://evil.example|click> <!subteam^S0X>';

/** Every token Slack would act on in what is sent (top-level text and mrkdwn) that we did not make. */
function foreign(payload: { text?: string }): string[] {
  const texts = [payload.text ?? '', ...mrkdwnTexts(payload)];
  return texts.flatMap((t) => t.match(/<(?:[!@#]|http)[^<>]*>/g) ?? []).filter((token) => !isOurToken(token));
}

describe('the outgoing guard', () => {
  it('escapes foreign tokens in top-level text, attachments and mrkdwn, and leaves plain_text alone', () => {
    const sent = guardOutgoing({
      text: `Restart ${HOSTILE} is running`,
      attachments: [{ fallback: HOSTILE, text: HOSTILE, color: '#000' }],
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `x ${HOSTILE}` } },
        { type: 'header', text: { type: 'plain_text', text: HOSTILE } },
      ],
    });
    expect(foreign(sent)).toEqual([]);
    expect(sent.text).toBe(
      'Restart &lt;!channel&gt; &lt;!here&gt; &lt;!everyone&gt; &lt;@U02BOB&gt; &lt;#C02DEPLOYS&gt; &lt;http://evil.example|click&gt; &lt;!subteam^S0X&gt; is running',
    );
    expect(sent.attachments[0]!.fallback).not.toContain('<!');
    expect(sent.blocks[1]!.text.text).toBe(HOSTILE);
  });

  it('keeps the tokens the helpers made, and escaped text unchanged', () => {
    const made = `${userMention('U02BOB')} at ${slackDate(1_700_000_000, 'then')} ${escapeMrkdwn(HOSTILE)}`;
    const sent = guardOutgoing({ text: made, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: made } }] });
    expect(sent.text).toBe(made);
    expect(sent.text).toContain('<@U02BOB>');
    expect(foreign(sent)).toEqual([]);
  });

  it('makes the approvers in a denial live mentions, though the sentence is escaped whole', () => {
    const sentence = `You are not an approver of ${HOSTILE}. Approvers: ${describeApprovers({ approverUsers: ['U02BOB'], approverGroups: ['S0APPROVERS'] })}.`;
    const sent = guardOutgoing(errorMessage(sentence));
    const shown = mrkdwnTexts(sent).join('\n');
    expect(shown).toContain('<@U02BOB> or members of <!subteam^S0APPROVERS>');
    expect(shown).toContain('&lt;!channel&gt;');
    expect(foreign(sent)).toEqual([]);
    // Never a sentinel on the wire, in the text fallback or anywhere else.
    expect(JSON.stringify(sent)).not.toMatch(/[\uE000\uE001]/);
    expect(plainMentions(sentence)).toContain('Approvers: <@U02BOB> or members of <!subteam^S0APPROVERS>.');
  });

  it('cannot be fooled by text that imitates a sealed mention', () => {
    const forged = '\uE000guess<!channel>\uE001';
    expect(escapeMrkdwn(forged)).not.toContain('<!channel>');
    expect(guardOutgoing({ text: forged }).text).not.toContain('<!channel>');
    expect(mention.user('not-an-id <!here>')).toBe('not-an-id <!here>');
    expect(escapeMrkdwn(mention.user('not-an-id <!here>'))).not.toContain('<!here>');
  });

  it('guards acks too: every receiver hands events to app.processEvent, whose ack is wrapped', async () => {
    const acked: unknown[] = [];
    const fakeApp = {
      client: new WebClient('xoxb-x'),
      use: () => {},
      // What Bolt does: the listener acks through the event's ack.
      processEvent: async (event: { ack: (r?: unknown) => Promise<void> }) => {
        await event.ack({
          response_action: 'update',
          view: { type: 'modal', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: HOSTILE } }] },
        });
      },
    };
    registerOutgoingGuard(fakeApp as unknown as App);
    await fakeApp.processEvent({ ack: async (r: unknown) => void acked.push(r) } as never);
    expect(JSON.stringify(acked)).not.toContain('<!channel>');
    expect(JSON.stringify(acked)).toContain('&lt;!channel&gt;');
  });

  it('leaves no foreign token in any builder output, top-level text included (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom(HOSTILE, '<!channel>', '<@U01ALICE|x>'), (t, h) => {
        const name = `${t}${h}`;
        const run = {
          runbookId: 'r1',
          runbookName: name,
          proxyId: 'p',
          startedBy: 'U01ALICE',
          inputs: { [name]: name },
        };
        const exec = Execution.parse({
          id: 'e1',
          workflowName: name,
          executor: name,
          reason: name,
          output: name,
          executionStatus: 'EXECUTION_STATUS_FAILED',
        });
        const runbook = Workflow.parse({ id: 'r1', name, description: name, inputSchema: '' });
        const watch = { runbookName: name, executionId: 'e1', startedBy: 'U01ALICE' } as Parameters<
          typeof replyText
        >[0];
        const messages = [
          buildRunningCard(run, ['e1']),
          buildResultCard(run, exec),
          buildRunbookDetails(runbook, parseInputSchema('')),
          noticeMessage(`:eyes: ${escapeMrkdwn(name)}`, name),
          errorMessage(`${name} did not start.`),
          { text: replyText(watch, exec, false) },
        ];
        for (const message of messages) expect(foreign(guardOutgoing(message))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
