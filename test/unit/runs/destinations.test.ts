// The destination rule (src/runs/destinations.ts) and the gate's use of it: pure, table-driven.
import { describe, expect, it } from 'vitest';
import { plainMentions } from '../../../src/mentions.ts';
import { actor } from '../../../src/runs/actor.ts';
import {
  type ChosenDestination,
  judgeDestination,
  type PlaceFacts,
  SAVED_DEFAULTS,
  savedAlias,
} from '../../../src/runs/destinations.ts';
import { destinationSentence } from '../../../src/runs/gate.ts';

const CHANNEL: PlaceFacts = { found: true, kind: 'private', archived: false, botIsMember: true, chooserIsMember: true };

function chosen(facts: Partial<PlaceFacts>, more: Partial<ChosenDestination> = {}): ChosenDestination {
  return { channel: 'C0TEAM', chosenBy: 'U01ALICE', saved: null, facts: { ...CHANNEL, ...facts }, ...more };
}

const judge = (d: ChosenDestination, runner: string | null = 'U01ALICE') => {
  const sentence = judgeDestination(d, runner);
  return sentence === null ? null : plainMentions(sentence);
};

describe('judgeDestination', () => {
  it('lets a result go to a channel the chooser is in, public or private', () => {
    expect(judge(chosen({}))).toBeNull();
    expect(judge(chosen({ kind: 'public', botIsMember: false }))).toBeNull(); // the bot joins public ones
  });

  it.each([
    ['a channel that does not exist (or is private without the bot)', { found: false }, 'does not exist'],
    ['an archived channel', { archived: true }, 'is archived'],
    ['a private channel without the bot', { botIsMember: false }, 'I am not in <#C0TEAM>'],
    ['a channel the chooser is not in', { chooserIsMember: false }, 'you are not a member of <#C0TEAM>'],
  ])('refuses %s', (_name, facts, words) => {
    const sentence = judge(chosen(facts));
    expect(sentence).toContain(words);
    expect(sentence).toMatch(/^Results cannot go there: .*\.$/);
  });

  it('takes a DM only when it is the chooser’s own and the result is theirs', () => {
    const own = chosen({ kind: 'dm', chooserIsMember: true }, { channel: 'D01ALICE' });
    expect(judge(own)).toBeNull();
    expect(judge(chosen({ kind: 'dm', chooserIsMember: false }, { channel: 'D02BOB' }))).toContain(
      'not your own direct message',
    );
    // Saved for a channel (runner unknown): never a DM, not even one's own.
    expect(judge(own, null)).toContain('used by everyone in it');
    // Someone else's result into the chooser's DM.
    expect(judge(own, 'U02BOB')).toContain('the direct message of <@U01ALICE>, not yours');
  });

  it('a saved destination that no longer passes names who saved it and how to fix it', () => {
    const stale = chosen({ chooserIsMember: false }, { saved: SAVED_DEFAULTS });
    expect(judge(stale, 'U02BOB')).toBe(
      "The result channel saved in this channel's run defaults by <@U01ALICE> no longer works: <@U01ALICE> is not a member of <#C0TEAM>. <@U01ALICE> or someone allowed to change it can fix it with `/runbook defaults --to #channel`.",
    );
    expect(judge(chosen({ found: false }, { saved: savedAlias('restart') }), 'U02BOB')).toContain(
      'saved in alias `restart` by <@U01ALICE>',
    );
  });
});

describe('destinationSentence (the gate)', () => {
  const base = { userId: 'U01ALICE', teamId: 'T1', groups: [], channelId: 'C01OPS' };

  it('needs no facts where the person acted, nor for a DM to them (no destination)', () => {
    expect(destinationSentence(actor(base), 'U01ALICE')).toBeNull();
    expect(destinationSentence(actor({ ...base, destinationChannel: null }), 'U01ALICE')).toBeNull();
  });

  it('fails closed on a destination elsewhere that nobody read the facts of', () => {
    expect(destinationSentence(actor({ ...base, destinationChannel: 'C02DEPLOYS' }), 'U01ALICE')).toContain(
      'could not be checked',
    );
    // Facts of another channel do not count for this one.
    const mismatched = actor({ ...base, destinationChannel: 'C02DEPLOYS', destination: chosen({}) });
    expect(destinationSentence(mismatched, 'U01ALICE')).toContain('could not be checked');
  });

  it('judges the facts it was given, also for the channel acted in (a workflow step)', () => {
    const here = chosen({ chooserIsMember: false }, { channel: 'C01OPS' });
    expect(destinationSentence(actor({ ...base, destination: here }), 'U01ALICE')).toContain('not a member');
    const ok = actor({ ...base, destinationChannel: 'C0TEAM', destination: chosen({}) });
    expect(destinationSentence(ok, 'U01ALICE')).toBeNull();
  });
});
