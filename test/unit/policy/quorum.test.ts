import { describe, expect, it } from 'vitest';
import { combineQuorums, evaluateQuorum, SINGLE_APPROVER } from '../../../src/policy/quorum.ts';

const vote = (userId: string, groups: string[] = [], at = 0) => ({ userId, groups, at });

describe('approval quorum', () => {
  it('counts distinct approvers', () => {
    const q = { count: 2, eachOf: [] };
    expect(evaluateQuorum(q, [])).toEqual({ met: false, approvers: [], missingCount: 2, missingGroups: [] });
    expect(evaluateQuorum(q, [vote('U1')])).toMatchObject({ met: false, missingCount: 1 });
    expect(evaluateQuorum(q, [vote('U1', [], 1), vote('U1', [], 2)])).toMatchObject({ met: false, approvers: ['U1'] });
    expect(evaluateQuorum(q, [vote('U2', [], 2), vote('U1', [], 1)])).toEqual({
      met: true,
      approvers: ['U1', 'U2'],
      missingCount: 0,
      missingGroups: [],
    });
    expect(evaluateQuorum(SINGLE_APPROVER, [vote('U1')]).met).toBe(true);
  });

  it('needs a different approver from each group; one person covers one group', () => {
    const q = { count: 1, eachOf: ['SDB', 'SSEC'] };
    expect(evaluateQuorum(q, [vote('U1', ['SDB', 'SSEC'])])).toMatchObject({
      met: false,
      missingCount: 1,
      missingGroups: ['SSEC'],
    });
    expect(evaluateQuorum(q, [vote('U1', ['SDB', 'SSEC']), vote('U2', ['SDB'])])).toMatchObject({
      met: true,
      missingGroups: [],
    });
    // Outsiders count towards the total but do not cover a group.
    expect(evaluateQuorum({ count: 3, eachOf: ['SDB'] }, [vote('U1'), vote('U2')])).toMatchObject({
      met: false,
      missingCount: 1,
      missingGroups: ['SDB'],
    });
  });

  it('combines', () => {
    expect(combineQuorums({ count: 2, eachOf: ['A'] }, { count: 1, eachOf: ['B', 'A'] })).toEqual({
      count: 2,
      eachOf: ['A', 'B'],
    });
  });
});
