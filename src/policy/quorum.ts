// Approval quorums: "two approvals", "one from each team". Pure: the votes (who approved, and the
// user groups they were in when they clicked) are passed in; the store keeps them and decides, with
// one compare-and-set, which click completes the quorum.
//
// A quorum is met when at least `count` distinct people approved AND every group in `eachOf` is
// covered by a different approver (one person in two required groups covers only one of them: "one
// from each team" means people, not memberships). The covering is a small bipartite matching.

export interface Quorum {
  /** Distinct approvers needed (≥ 1). */
  count: number;
  /** User group ids of which at least one (different) approver each is needed. */
  eachOf: string[];
}

export interface Vote {
  userId: string;
  /** The voter's user groups when they approved. */
  groups: string[];
  at: number;
}

export interface QuorumState {
  met: boolean;
  /** Who approved so far, in order of approval. */
  approvers: string[];
  /** Distinct approvals still needed (counting the groups still to cover). */
  missingCount: number;
  /** Required groups no approver covers yet. */
  missingGroups: string[];
}

/** One approver, any group: what a request without a quorum rule needs. */
export const SINGLE_APPROVER: Quorum = { count: 1, eachOf: [] };

/** The stricter of two quorums: the higher count, every group of both. */
export function combineQuorums(a: Quorum, b: Quorum): Quorum {
  return { count: Math.max(a.count, b.count), eachOf: [...new Set([...a.eachOf, ...b.eachOf])] };
}

/** Distinct voters, first vote of each person kept, in time order. */
function distinctVotes(votes: readonly Vote[]): Vote[] {
  const seen = new Set<string>();
  return [...votes]
    .sort((x, y) => x.at - y.at)
    .filter((v) => {
      if (seen.has(v.userId)) return false;
      seen.add(v.userId);
      return true;
    });
}

/** Maximum matching of required groups to distinct voters (Kuhn's algorithm; both sides are tiny). */
function coverGroups(groups: readonly string[], voters: readonly Vote[]): Set<string> {
  const holder = new Map<string, number>(); // group → voter index
  const byVoter = new Map<number, string>(); // voter index → group
  const tryGroup = (group: string, visited: Set<number>): boolean => {
    for (const [i, voter] of voters.entries()) {
      if (!voter.groups.includes(group) || visited.has(i)) continue;
      visited.add(i);
      const taken = byVoter.get(i);
      if (taken === undefined || tryGroup(taken, visited)) {
        holder.set(group, i);
        byVoter.set(i, group);
        return true;
      }
    }
    return false;
  };
  for (const group of groups) tryGroup(group, new Set());
  return new Set(holder.keys());
}

export function evaluateQuorum(quorum: Quorum, votes: readonly Vote[]): QuorumState {
  const voters = distinctVotes(votes);
  const covered = coverGroups(quorum.eachOf, voters);
  const missingGroups = quorum.eachOf.filter((g) => !covered.has(g));
  const need = Math.max(1, quorum.count, quorum.eachOf.length);
  // Voters who cover no missing group still count towards the total; each missing group needs one more.
  const missingCount = Math.max(need - voters.length, missingGroups.length);
  return {
    met: missingCount === 0 && missingGroups.length === 0,
    approvers: voters.map((v) => v.userId),
    missingCount,
    missingGroups,
  };
}

/** Whether a quorum asks for more than one plain approval. */
export function isQuorum(q: Quorum | null | undefined): q is Quorum {
  return !!q && (q.count > 1 || q.eachOf.length > 0);
}
