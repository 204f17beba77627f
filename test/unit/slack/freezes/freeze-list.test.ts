import { describe, expect, it } from 'vitest';
import { buildFreezeList, buildFreezeNotice, buildPassGranted } from '../../../../src/slack/freezes/freeze-list.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';

const END = Date.parse('2027-01-04T08:00:00Z');

describe('freeze builders', () => {
  it('lists windows on now (until when), next (from when) and over, names escaped', () => {
    const message = buildFreezeList([
      { name: 'Year <!channel> end', activeUntil: END, nextStart: null },
      { name: 'Weekend', activeUntil: null, nextStart: END },
      { name: 'Launch', activeUntil: null, nextStart: null },
    ]);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('*Year &lt;!channel&gt; end*: *on now*, until <!date^1799049600^');
    expect(text).toContain('*Weekend*: next from <!date^1799049600^');
    expect(text).toContain('*Launch*: over');
    expect(message.text).toBe('Change freezes: 3 declared, 1 on now.');
    assertWithinLimits(message, 'message');
    expect(buildFreezeList([]).text).toBe('No change freezes are declared in the policy.');
  });

  it('says a pause and a resume where the schedule was made, with its expression', () => {
    const notice = { scheduleId: 's1', runbookName: 'Vacuum <@U1>', cron: '0 5 * * *', channel: 'C1' };
    const paused = buildFreezeNotice({ ...notice, kind: 'paused', freeze: 'Year end', until: END });
    expect(JSON.stringify(paused.blocks)).toContain('Paused the schedule of *Vacuum &lt;@U1&gt;* (`0 5 * * *`)');
    expect(JSON.stringify(paused.blocks)).toContain('resumes by itself when the freeze ends');
    const resumed = buildFreezeNotice({ ...notice, kind: 'resumed', freeze: 'Year end', until: null });
    expect(resumed.text).toContain('the change freeze Year end has ended');
    for (const m of [paused, resumed]) assertWithinLimits(m, 'message');
  });

  it('tells a granted pass: one run, until when', () => {
    const granted = buildPassGranted({ runbookName: 'Restart Pods', freeze: 'Year end', expiresAt: END });
    expect(JSON.stringify(granted.blocks)).toContain('your next run of *Restart Pods*');
    expect(JSON.stringify(granted.blocks)).toContain('(once, until <!date^1799049600^');
  });
});
