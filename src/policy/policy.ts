// Who may do what. A policy is a list of rules read top to bottom (first match wins) that allow
// or deny an action to people (Slack users, user groups, channels) on runbooks (by id, name
// pattern, tag, category, service/custom), plus approval requirements beyond the API's own
// `requiresApproval`. Pure: group membership is passed in, nothing is fetched here.

import { z } from 'zod';
import { mention } from '../mentions.ts';
import { freezeWindowSchema, windowState } from './freezes.ts';
import { channelIds, groupIds, teamIds, userIds } from './ids.ts';
import { combineQuorums, type Quorum, SINGLE_APPROVER } from './quorum.ts';

export const ACTIONS = ['view', 'run', 'schedule', 'approve', 'audit'] as const;
export type PolicyAction = (typeof ACTIONS)[number];

const idList = z.array(z.string().min(1)).optional();

const RunbookSelector = z
  .object({
    ids: idList,
    /** Glob patterns on the runbook name, case-insensitive: `*` any text, `?` one character. */
    names: idList,
    tags: idList,
    /** CATEGORY_TYPE_SRE or sre */
    categories: idList,
    kind: z.enum(['service', 'custom']).optional(),
  })
  .strict();

const People = z
  .object({
    users: userIds,
    groups: groupIds,
  })
  .strict();

const Rule = z
  .object({
    name: z.string().min(1),
    effect: z.enum(['allow', 'deny']),
    actions: z.array(z.enum(ACTIONS)).min(1),
    users: userIds,
    groups: groupIds,
    channels: channelIds,
    /** Workspaces (team ids, or a Grid org's id) the rule is for; unset: every workspace. */
    teams: teamIds,
    runbooks: RunbookSelector.optional(),
  })
  .strict();

/** "Two approvals", "one from each of these groups": distinct approvers a request needs. */
const QuorumRule = z
  .object({
    /** Distinct approvers needed (default 1). */
    approvals: z.number().int().min(1).max(10).optional(),
    /** User group ids of which one approver each is needed (a different person per group). */
    oneFromEach: groupIds,
  })
  .strict();

const ApprovalRule = z
  .object({
    name: z.string().min(1),
    /** Workspaces (team ids, or a Grid org's id) whose runs the rule is for; unset: every workspace. */
    teams: teamIds,
    runbooks: RunbookSelector.optional(),
    approvers: People.optional(),
    quorum: QuorumRule.optional(),
  })
  .strict();

/** A change freeze (freezes.ts): while inside it, covered runs are refused and covered schedules paused. */
const FreezeWindow = freezeWindowSchema(RunbookSelector);

export const PolicyFile = z
  .object({
    /** Who to ask when something is denied, shown in the message (e.g. "#platform-team"). */
    contact: z.string().optional(),
    /** Effect when no rule matches (default allow). */
    default: z.enum(['allow', 'deny']).optional(),
    rules: z.array(Rule).optional(),
    /** Runbooks that need approval beyond the API's requiresApproval, and who approves them. */
    approvals: z.array(ApprovalRule).optional(),
    /** Approvers of runbooks the API marks requiresApproval (and of approval rules without their own). */
    approvers: People.optional(),
    /** Quorum of runbooks the API marks requiresApproval (approval rules may set their own). */
    quorum: QuorumRule.optional(),
    /** Change freezes: windows in which runs are refused and the schedules they cover are paused. */
    freezes: z.array(FreezeWindow).optional(),
    /** Only the person who created a schedule in Slack may edit or delete it. */
    scheduleOwnersOnly: z.boolean().optional(),
    /**
     * People of another organisation (Slack Connect: neither their workspace nor their Enterprise Grid
     * org is the installation's) may use the bot: `allow`, or `deny` (the default).
     */
    externalUsers: z.enum(['allow', 'deny']).optional(),
    /**
     * The Slack user a Workflow Builder step runs as when Slack attests nobody (a scheduled or
     * event-triggered workflow); unset: such steps fail.
     */
    unattendedWorkflowsRunAs: z
      .string()
      .regex(/^[UW][A-Z0-9]+$/, 'must be a Slack user id like U012ABC')
      .refine((id) => id !== 'USLACKBOT', 'must be a person, not Slackbot')
      .optional(),
  })
  .strict();
export type PolicyFile = z.output<typeof PolicyFile>;
type RuleT = z.output<typeof Rule>;
export type FreezeWindow = z.output<typeof FreezeWindow>;
type Selector = z.output<typeof RunbookSelector>;

/**
 * Where something happens, for `teams:`: the workspace (team id), its Enterprise Grid org and the
 * installation serving it (a workspace's id, or the org's for an org-wide install). Null or absent: not
 * known. A rule naming teams is decided only when the workspace is known or one of the ids is named;
 * otherwise it fails closed (a deny, an approval rule and a freeze hold; an allow does not).
 */
export interface Place {
  teamId?: string | null;
  enterpriseId?: string | null;
  installationId?: string | null;
}

/** The ids a place is known by, and whether its workspace is known. */
function mergePlaces(place: Place | undefined, home: Place | null): { ids: string[]; workspaceKnown: boolean } {
  const all = [place?.teamId, place?.enterpriseId, place?.installationId, home?.teamId, home?.enterpriseId];
  const ids = [...new Set([...all, home?.installationId].filter((t): t is string => typeof t === 'string' && !!t))];
  return { ids, workspaceKnown: Boolean(place?.teamId || home?.teamId) };
}

/** Whether a rule's `teams:` covers the place: true, false, or null when it cannot be told (workspace unknown). */
function teamsCover(
  teams: readonly string[] | undefined,
  place: Place | undefined,
  home: Place | null,
): boolean | null {
  if (!teams) return true;
  const { ids, workspaceKnown } = mergePlaces(place, home);
  if (ids.some((id) => teams.includes(id))) return true;
  return workspaceKnown ? false : null;
}

/** The person acting and where. */
export interface Subject {
  userId: string;
  /** User group ids the person belongs to (resolved by the caller). */
  groups: readonly string[];
  channelId: string | null;
  /**
   * The workspace the person acts from (and its Grid org, when known); undefined: unknown, which a rule
   * naming `teams` matches only to deny (it fails closed).
   */
  teamId?: string | null;
  enterpriseId?: string | null;
}

/** Where a subject acts. */
function placeOf(subject: Subject): Place {
  return { teamId: subject.teamId ?? null, enterpriseId: subject.enterpriseId ?? null };
}

/** What the policy needs to know about a runbook. */
export interface RunbookFacts {
  id: string;
  name: string;
  tags: readonly string[];
  categories: readonly string[];
  isService: boolean | null;
  requiresApproval: boolean;
}

export type Decision =
  | { allowed: true; rule: string | null }
  | { allowed: false; rule: string | null; message: string };

export interface ApprovalNeed {
  required: boolean;
  /** Why, for the modal: "the runbook requires approval" / rule names. */
  reasons: string[];
  /** Empty lists = anyone allowed to approve (except the requester). */
  approverUsers: string[];
  approverGroups: string[];
  /** How many distinct approvers (and from which groups) it takes; the strictest of the matching rules. */
  quorum: Quorum;
}

function toQuorum(rule: { approvals?: number | undefined; oneFromEach?: string[] | undefined } | undefined): Quorum {
  return { count: rule?.approvals ?? 1, eachOf: [...(rule?.oneFromEach ?? [])] };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

function normCategory(c: string): string {
  return c
    .toUpperCase()
    .replace(/^CATEGORY_TYPE_/, '')
    .replace(/[\s-]+/g, '_');
}

function matchesRunbook(selector: Selector | undefined, runbook: RunbookFacts | null): boolean {
  if (!selector) return true;
  if (!runbook) return false; // a rule about certain runbooks never matches an action on no runbook
  if (selector.ids && !selector.ids.includes(runbook.id)) return false;
  if (selector.names && !selector.names.some((g) => globToRegExp(g).test(runbook.name))) return false;
  if (selector.tags && !selector.tags.some((t) => runbook.tags.some((rt) => rt.toLowerCase() === t.toLowerCase()))) {
    return false;
  }
  if (
    selector.categories &&
    !selector.categories.some((c) => runbook.categories.some((rc) => normCategory(rc) === normCategory(c)))
  ) {
    return false;
  }
  if (selector.kind && runbook.isService !== (selector.kind === 'service')) return false;
  return true;
}

function matchesSubject(rule: RuleT, subject: Subject, home: Place | null): boolean {
  if (rule.users && !rule.users.includes(subject.userId)) return false;
  if (rule.groups && !rule.groups.some((g) => subject.groups.includes(g))) return false;
  if (rule.channels && !(subject.channelId && rule.channels.includes(subject.channelId))) return false;
  const teams = teamsCover(rule.teams, placeOf(subject), home);
  return teams === null ? rule.effect === 'deny' : teams;
}

/** Who and where a freeze is judged for: a run's person (groups null: unknown) and its channels. */
export interface FreezeScope {
  userId: string | null;
  /** null: not known (a schedule's owner, an approved request's requester): group-selected windows apply. */
  groups: readonly string[] | null;
  /** Where the person acted and where the result goes (a schedule: the channel it was made in). */
  channels: ReadonlyArray<string | null>;
  /** The workspace the run is for (the person's, a schedule's maker's); absent: unknown. */
  place?: Place;
}

/** A window the scope is inside at the moment asked. */
export interface ActiveFreeze {
  name: string;
  /** Epoch ms when this occurrence ends. */
  end: number;
  window: FreezeWindow;
}

function freezeCovers(w: FreezeWindow, scope: FreezeScope, runbook: RunbookFacts | null, home: Place | null): boolean {
  if (!matchesRunbook(w.runbooks, runbook)) return false;
  // A window for certain workspaces covers a run whose workspace is unknown (it fails closed).
  if (teamsCover(w.teams, scope.place, home) === false) return false;
  if (w.channels && !scope.channels.some((c) => c !== null && w.channels!.includes(c))) return false;
  // A window for certain people covers everyone when who is acting is unknown (it fails closed).
  const person =
    scope.userId !== null && w.users?.includes(scope.userId)
      ? true
      : scope.groups === null
        ? Boolean(w.groups)
        : Boolean(w.groups?.some((g) => scope.groups!.includes(g)));
  if ((w.users || w.groups) && !person) return false;
  return true;
}

const VERB: Record<PolicyAction, string> = {
  view: 'view',
  run: 'run',
  schedule: 'schedule',
  approve: 'approve runs of',
  audit: 'read the audit trail of',
};

/**
 * The user groups of one installation's workspace(s) (many workspaces), as its own token lists them: group
 * id → the workspace to name when reading its members (`team_id`, for an org-wide install), else null.
 */
export type GroupsHere = ReadonlyMap<string, string | null>;

/** Of the users a policy names as approvers, those Slack puts in the installation (withUsersHere). */
export type UsersHere = Pick<ReadonlySet<string>, 'has'>;

/** Where a policy names approvers and none of them is of this workspace. */
export const APPROVERS_ELSEWHERE = 'nobody in this workspace (the policy names approvers of other workspaces only)';

export class Policy {
  readonly file: PolicyFile;
  readonly source: string;
  /** A workspace's own approver group (narrowedTo): approvers must be its members where the file allows it. */
  readonly approverGroup: string | null;
  /** The installation this policy is applied for (forInstallation): its ids join every place judged. */
  readonly home: Place | null;
  /**
   * The installation's own user groups (withGroupsHere; null: not known to differ, single workspace): only
   * these are named or mentioned — another workspace's group named by the file is nobody's here.
   */
  readonly groupsHere: GroupsHere | null;
  /** Likewise its own people among the approver users the file names (null: not filtered): no other is named. */
  readonly usersHere: UsersHere | null;

  constructor(
    file: PolicyFile,
    source: string,
    approverGroup: string | null = null,
    home: Place | null = null,
    groupsHere: GroupsHere | null = null,
    usersHere: UsersHere | null = null,
  ) {
    this.file = file;
    this.source = source;
    this.approverGroup = approverGroup;
    this.home = home;
    this.groupsHere = groupsHere;
    this.usersHere = usersHere;
  }

  /** Who is named as an approver for this installation (only its own groups and people; null: all). */
  get here(): Here {
    return { groups: this.groupsHere, users: this.usersHere };
  }

  /**
   * The same file as one installation applies it (many workspaces): the installation's id, its workspace
   * (unless org-wide) and its Grid org count wherever `teams:` is matched, with the workspace acted in.
   */
  forInstallation(home: Place): Policy {
    return new Policy(this.file, this.source, this.approverGroup, home, this.groupsHere, this.usersHere);
  }

  /** The same policy for an installation whose workspace(s) have these user groups (see groupsHere). */
  withGroupsHere(groupsHere: GroupsHere | null): Policy {
    return new Policy(this.file, this.source, this.approverGroup, this.home, groupsHere, this.usersHere);
  }

  /** The same policy for an installation with these of the file's approver users (see usersHere). */
  withUsersHere(usersHere: UsersHere | null): Policy {
    return new Policy(this.file, this.source, this.approverGroup, this.home, this.groupsHere, usersHere);
  }

  /**
   * The same policy for a workspace whose admins named an approver group (one this policy names): where a
   * run's approvers are anyone, or include that group, only its members may approve (the quorum's
   * one-from-each groups stay as they are). Never wider: elsewhere the file's approvers stand.
   */
  narrowedTo(approverGroup: string | null): Policy {
    return approverGroup === this.approverGroup
      ? this
      : new Policy(this.file, this.source, approverGroup, this.home, this.groupsHere, this.usersHere);
  }

  /**
   * The user groups a workspace may narrow its approvers to: those the file names as approvers (`approvers`,
   * a quorum's `oneFromEach`, an `approve` allow rule's `groups`) where the rule surely applies to this
   * installation — never a group of a rule for another team, nor one the installation is not surely in,
   * nor one that is not of its workspace (groupsHere).
   */
  get approverGroups(): string[] {
    const f = this.file;
    const here = (teams: readonly string[] | undefined) => teamsCover(teams, undefined, this.home) === true;
    const lists = [
      f.approvers?.groups,
      f.quorum?.oneFromEach,
      ...(f.approvals ?? [])
        .filter((rule) => here(rule.teams))
        .flatMap((rule) => [rule.approvers?.groups, rule.quorum?.oneFromEach]),
      ...(f.rules ?? [])
        .filter((rule) => rule.effect === 'allow' && rule.actions.includes('approve') && here(rule.teams))
        .map((rule) => rule.groups),
    ];
    const groups = [...new Set(lists.flatMap((list) => list ?? []))];
    return this.groupsHere ? groups.filter((g) => this.groupsHere!.has(g)) : groups;
  }

  /** No policy file: everyone may view, run, schedule, approve (never their own request) and read the audit trail. */
  static permissive(): Policy {
    return new Policy({}, 'the built-in default policy');
  }

  get contact(): string {
    return this.file.contact ?? 'the bot admins';
  }

  get scheduleOwnersOnly(): boolean {
    return this.file.scheduleOwnersOnly ?? false;
  }

  get allowsExternalUsers(): boolean {
    return this.file.externalUsers === 'allow';
  }

  /** Whom a workflow step nobody started runs as (null: such steps fail). */
  get unattendedWorkflowsRunAs(): string | null {
    return this.file.unattendedWorkflowsRunAs ?? null;
  }

  /** The refusal of a person of another organisation (Slack Connect), worded like every denial. */
  get externalDenial(): string {
    return `You may not use the runbook bot from another organisation: denied by the external-users setting of ${this.source}. Ask ${this.contact} if you need access.`;
  }

  decide(action: PolicyAction, subject: Subject, runbook: RunbookFacts | null): Decision {
    for (const rule of this.file.rules ?? []) {
      if (!rule.actions.includes(action)) continue;
      if (!matchesSubject(rule, subject, this.home) || !matchesRunbook(rule.runbooks, runbook)) continue;
      if (rule.effect === 'allow') return { allowed: true, rule: rule.name };
      return { allowed: false, rule: rule.name, message: this.#denial(action, runbook, `rule “${rule.name}”`) };
    }
    if ((this.file.default ?? 'allow') === 'allow') return { allowed: true, rule: null };
    return { allowed: false, rule: null, message: this.#denial(action, runbook, 'the default rule') };
  }

  /**
   * Whether a rule may refuse `view` of a runbook for its facts beyond a name (id, tags, categories, kind):
   * then a runbook known only by its name (the catalog unreadable) cannot be judged, and is not shown.
   */
  get hidesByRunbookFacts(): boolean {
    return (this.file.rules ?? []).some(
      (r) =>
        r.effect === 'deny' &&
        r.actions.includes('view') &&
        r.runbooks !== undefined &&
        Object.entries(r.runbooks).some(([key, value]) => key !== 'names' && value !== undefined),
    );
  }

  #denial(action: PolicyAction, runbook: RunbookFacts | null, by: string): string {
    // A runbook the person may not view is never named to them, not even in the refusal.
    const name = action === 'view' ? 'that runbook' : runbook?.name;
    const what = runbook ? `${VERB[action]} ${name}` : action === 'audit' ? 'read the audit trail' : action;
    return `You may not ${what}: denied by ${by} of ${this.source}. Ask ${this.contact} if you need access.`;
  }

  get freezes(): readonly FreezeWindow[] {
    return this.file.freezes ?? [];
  }

  /** Whether a rule with these `teams` may apply somewhere this installation serves (no home: anywhere). */
  mayApplyHere(teams: readonly string[] | undefined): boolean {
    return teamsCover(teams, undefined, this.home) !== false;
  }

  /** The windows that may cover runs in `place`: none naming only other teams (another tenant's are not shown). */
  freezesFor(place: Place): readonly FreezeWindow[] {
    return this.freezes.filter((w) => teamsCover(w.teams, place, this.home) !== false);
  }

  /** The first window (in file order) that covers this scope and runbook at `now`, or null. */
  freezeAt(scope: FreezeScope, runbook: RunbookFacts | null, now: number): ActiveFreeze | null {
    for (const window of this.freezes) {
      if (!freezeCovers(window, scope, runbook, this.home)) continue;
      const state = windowState(window, now);
      if (state.inside && state.end !== null) return { name: window.name, end: state.end, window };
    }
    return null;
  }

  /**
   * May `subject` break this freeze for one run of `runbook`? The window's `breakGlass` people, else the
   * policy's `approvers`, else anyone the policy lets `approve` that runbook.
   */
  mayBreakFreeze(subject: Subject, runbook: RunbookFacts, freeze: ActiveFreeze): Decision {
    const people = freeze.window.breakGlass ?? this.file.approvers;
    if (people && ((people.users?.length ?? 0) > 0 || (people.groups?.length ?? 0) > 0)) {
      const listed =
        people.users?.includes(subject.userId) || people.groups?.some((g) => subject.groups.includes(g)) === true;
      if (listed) return { allowed: true, rule: null };
      const who = describeApprovers(
        { approverUsers: people.users ?? [], approverGroups: people.groups ?? [] },
        this.here,
      );
      return {
        allowed: false,
        rule: null,
        message: `You may not break the change freeze “${freeze.name}”: ${who} can. Ask ${this.contact}.`,
      };
    }
    return this.decide('approve', subject, runbook);
  }

  /**
   * Whether a run of `runbook` in `place` (where it is requested; absent: unknown) needs approval, and who
   * may give it. An approval rule naming teams applies where its workspace is unknown (it fails closed).
   */
  approvalFor(runbook: RunbookFacts, place?: Place): ApprovalNeed {
    const reasons: string[] = [];
    const users = new Set<string>();
    const groups = new Set<string>();
    const addPeople = (p: { users?: string[] | undefined; groups?: string[] | undefined } | undefined) => {
      for (const u of p?.users ?? []) users.add(u);
      for (const g of p?.groups ?? []) groups.add(g);
    };
    let quorum: Quorum = SINGLE_APPROVER;
    if (runbook.requiresApproval) {
      reasons.push('the runbook requires approval');
      addPeople(this.file.approvers);
      quorum = combineQuorums(quorum, toQuorum(this.file.quorum));
    }
    for (const rule of this.file.approvals ?? []) {
      if (!matchesRunbook(rule.runbooks, runbook) || teamsCover(rule.teams, place, this.home) === false) continue;
      reasons.push(`rule “${rule.name}”`);
      addPeople(rule.approvers ?? this.file.approvers);
      quorum = combineQuorums(quorum, toQuorum(rule.quorum ?? this.file.quorum));
    }
    // Approvers from a required group may approve even when the rule lists other people.
    if (users.size > 0 || groups.size > 0) for (const g of quorum.eachOf) groups.add(g);
    const narrowed = this.approverGroup;
    if (narrowed && reasons.length > 0 && ((users.size === 0 && groups.size === 0) || groups.has(narrowed))) {
      users.clear();
      groups.clear();
      for (const g of [narrowed, ...quorum.eachOf]) groups.add(g);
    }
    return {
      required: reasons.length > 0,
      reasons,
      approverUsers: [...users],
      approverGroups: [...groups],
      quorum,
    };
  }

  /**
   * May `subject` approve the request of `requesterId` to run `runbook`? Never their own. Who approves is
   * decided where the request was made (`requestPlace`; absent: unknown).
   */
  canApprove(subject: Subject, runbook: RunbookFacts, requesterId: string, requestPlace?: Place): Decision {
    if (subject.userId === requesterId) {
      return { allowed: false, rule: null, message: 'You cannot approve your own request; another approver has to.' };
    }
    const need = this.approvalFor(runbook, requestPlace);
    const listed = need.approverUsers.length > 0 || need.approverGroups.length > 0;
    if (
      listed &&
      !need.approverUsers.includes(subject.userId) &&
      !need.approverGroups.some((g) => subject.groups.includes(g))
    ) {
      return {
        allowed: false,
        rule: null,
        message: `You are not an approver of ${runbook.name}. Approvers: ${describeApprovers(need, this.here)}.`,
      };
    }
    return this.decide('approve', subject, runbook);
  }
}

/**
 * Who may be named as an approver for one installation (many workspaces): only its own user groups and its
 * own people (Policy.here); null: any.
 */
export interface Here {
  groups: Pick<GroupsHere, 'has'> | null;
  users: UsersHere | null;
}

const ANY_HERE: Here = { groups: null, users: null };

/**
 * Who must approve, as the end of a sentence: "@Bob or @Carol can approve it" for one approval; with a
 * quorum "it needs approval from both @Bob and @Carol", "… from 2 of @Bob, @Carol and @Dan", or
 * "it needs 2 approvals from members of @sre, one from each of @dba" — never "or" when all are needed.
 */
export function describeWhoApproves(
  need: Pick<ApprovalNeed, 'approverUsers' | 'approverGroups' | 'quorum'>,
  here: Here = ANY_HERE,
): string {
  const { count, eachOf } = need.quorum;
  const needed = Math.max(1, count, eachOf.length);
  if (needed <= 1) return `${describeApprovers(need, here)} can approve it`;
  // A group or person of another workspace is never mentioned (but counts: nobody here can give that approval).
  const named = (g: string) =>
    !here.groups || here.groups.has(g) ? mention.group(g) : 'a user group of another workspace';
  const each = eachOf.length ? `, one from each of ${eachOf.map(named).join(', ')}` : '';
  if (need.approverGroups.length === 0 && need.approverUsers.length >= needed) {
    const mine = need.approverUsers.filter((u) => !here.users || here.users.has(u));
    if (mine.length === 0) return `it needs ${needed} approvals from ${APPROVERS_ELSEWHERE}${each}`;
    const away = need.approverUsers.length - mine.length;
    const users = [
      ...mine.map((u) => mention.user(u)),
      ...(away === 0 ? [] : [away === 1 ? 'a person of another workspace' : `${away} people of other workspaces`]),
    ];
    const n = need.approverUsers.length;
    const all = n === 2 ? 'both ' : n > 2 && needed === n ? 'all of ' : '';
    const some = needed < n ? `${needed} of ` : all;
    return `it needs approval from ${some}${users.slice(0, -1).join(', ')} and ${users.at(-1)}${each}`;
  }
  return `it needs ${needed} approvals from ${describeApprovers(need, here)}${each}`;
}

/**
 * "<@U1>, <@U2> or members of <!subteam^S1>" — or "anyone but the requester". The mentions are sealed
 * (src/mentions.ts): live in Slack even inside a sentence that is escaped as a whole. `here` (many
 * workspaces): only the installation's own groups and people are named; where the policy names
 * approvers and none is here, it says so (APPROVERS_ELSEWHERE), never "anyone".
 */
export function describeApprovers(
  need: Pick<ApprovalNeed, 'approverUsers' | 'approverGroups'>,
  here: Here = ANY_HERE,
): string {
  const groups = here.groups ? need.approverGroups.filter((g) => here.groups!.has(g)) : need.approverGroups;
  const users = here.users ? need.approverUsers.filter((u) => here.users!.has(u)) : need.approverUsers;
  const people = [...users.map((u) => mention.user(u)), ...groups.map((g) => `members of ${mention.group(g)}`)];
  const named = need.approverGroups.length > 0 || need.approverUsers.length > 0;
  if (people.length === 0 && named) return APPROVERS_ELSEWHERE;
  if (people.length === 0) return 'anyone but the requester';
  return people.length === 1 ? people[0]! : `${people.slice(0, -1).join(', ')} or ${people.at(-1)}`;
}
