// The builders of the entry points beyond the form: arbitrary names and values stay text (no mention,
// broadcast or link can come from them), and every surface passes Slack's limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeDestination, SAVED_DEFAULTS, type SavedIn, savedAlias } from '../../../src/runs/destinations.ts';
import { buildOpenFormPrompt, openFormValue, readOpenFormValue } from '../../../src/slack/command/mention-prompt.ts';
import { buildAppHome } from '../../../src/slack/home/app-home.ts';
import { buildRunningCard } from '../../../src/slack/kit/execution-card.ts';
import { checkBlocks, checkView } from '../../../src/slack/kit/limits.ts';
import { buildAliasList, buildChannelDefaults } from '../../../src/slack/run/alias-list.ts';
import { buildRunConfirmation } from '../../../src/slack/run/run-confirmation.ts';
import type { RunAlias } from '../../../src/store/saved-runs.ts';
import { mrkdwnTexts } from '../../support/block-texts.ts';

function onlyOurTokens(surface: unknown) {
  for (const token of mrkdwnTexts(surface)
    .join('\n')
    .match(/<[^>]*>/g) ?? []) {
    expect(token).toMatch(
      /^<(#[CGD][A-Z0-9]+|!date\^\d+\^[^|]*\|[^>]*|https:\/\/sandbox\.slack\.com\/archives\/[^|>]+\|a message)>$/,
    );
  }
}

const alias = (name: string, runbookName: string, params: string): RunAlias => ({
  channel: 'C01OPS',
  name,
  runbookId: 'rb-1',
  runbookName,
  params,
  proxyId: 'proxy-dev',
  resultChannel: 'C02DEPLOYS',
  createdBy: 'U01ALICE',
  teamId: 'T1',
  createdAt: 0,
  updatedAt: 0,
});

describe('entry-point builders', () => {
  it('run confirmation, alias list, defaults, open-form prompt: text stays text, limits hold', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.dictionary(fc.string({ maxLength: 40 }), fc.string({ maxLength: 400 })),
        (text, values) => {
          const surfaces = [
            buildRunConfirmation({
              runbookName: text,
              inputs: values,
              proxyId: text || 'p',
              destination: 'C02DEPLOYS',
              alias: text,
              value: '{"d":"x"}',
            }),
            buildAliasList(Array.from({ length: 60 }, (_, i) => alias(`a${i}`, text, JSON.stringify(values)))),
            buildChannelDefaults({
              channel: 'C01OPS',
              proxyId: text,
              resultChannel: 'C02DEPLOYS',
              updatedBy: 'U1',
              updatedAt: 0,
            }),
            buildOpenFormPrompt(text, openFormValue(text, '1.2') ?? '{}'),
          ];
          for (const s of surfaces) {
            expect(checkBlocks(s.blocks, 'message')).toEqual([]);
            onlyOurTokens(s.blocks);
          }
          const home = buildAppHome({ executions: [], schedules: [], aliases: [alias('x', text, '{}')], now: 0 });
          expect(checkView(home)).toEqual([]);
          onlyOurTokens(home.blocks);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the card shows where a run started only for a plain https link', () => {
    const run = { runbookId: 'r', runbookName: 'R', proxyId: 'p', startedBy: null, inputs: {} };
    const link = 'https://sandbox.slack.com/archives/C01OPS/p1700000000000100';
    expect(JSON.stringify(buildRunningCard({ ...run, sourceLink: link }, ['e1']).blocks)).toContain(
      `Started from <${link}|a message>`,
    );
    for (const bad of ['javascript:alert(1)', 'https://x|<!channel>', 'http://plain.example']) {
      expect(JSON.stringify(buildRunningCard({ ...run, sourceLink: bad }, ['e1']).blocks)).not.toContain(
        'Started from',
      );
    }
  });

  it('a saved result channel that no longer passes is shown as broken, with who saved it, within limits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (name) => {
        const facts = { found: true, kind: 'private' as const, archived: false, botIsMember: true };
        const stale = (saved: SavedIn) =>
          judgeDestination(
            { channel: 'C0TEAM', chosenBy: 'U01ALICE', saved, facts: { ...facts, chooserIsMember: false } },
            null,
          )!;
        const aliases = Array.from({ length: 45 }, (_, i) => alias(`a${i}`, name, '{}'));
        const broken = new Map(aliases.map((a) => [a.name, stale(savedAlias(name))]));
        const defaults = { channel: 'C01OPS', proxyId: null, resultChannel: 'C0TEAM', updatedBy: 'U1', updatedAt: 0 };
        for (const s of [
          buildAliasList(aliases, () => null, broken),
          buildChannelDefaults(defaults, null, () => null, stale(SAVED_DEFAULTS)),
        ]) {
          expect(checkBlocks(s.blocks, 'message')).toEqual([]);
          expect(JSON.stringify(s.blocks)).toContain('Broken:');
          // Only the tokens the bot means: the channels and the person who saved it.
          for (const token of mrkdwnTexts(s.blocks)
            .join('\n')
            .match(/<[^>]*>/g) ?? []) {
            expect(token).toMatch(/^<(#C0TEAM|#C02DEPLOYS|@U01ALICE)>$/);
          }
        }
        expect(JSON.stringify(buildChannelDefaults(defaults).blocks)).not.toContain('Broken:');
      }),
      { numRuns: 40 },
    );
  });

  it('the open-form button carries the command and the thread, and refuses what does not fit', () => {
    expect(readOpenFormValue(openFormValue('run x a=1', '17.5')!)).toEqual({
      commandText: 'run x a=1',
      threadTs: '17.5',
    });
    expect(openFormValue('x'.repeat(2100), null)).toBeNull();
    expect(readOpenFormValue('not json')).toBeNull();
  });
});
