// Schedules and when they fire next. Firing itself (creating executions) is EmulatorState's job;
// this keeps the records, their parsed cron and the earliest due time so the per-request check
// "is anything due?" is O(1).
import type { Schedule, ScheduleWrite } from '../api/schemas.ts';
import { type CronSchedule, nextFireAfter, parseCron } from './cron.ts';
import type { FilterTerm } from './filter.ts';

export interface ScheduleRecord {
  schedule: Schedule;
  createdMs: number;
  seq: number;
  cron: CronSchedule;
  nextFireMs: number | null;
}

export const SCHEDULE_FILTER_FIELDS: Record<string, string[]> = {
  runbookId: ['workflowId'],
  runbookName: ['name', 'workflowName'],
  proxyId: [],
  userEmail: ['owner'],
  id: [],
};

/** Fields PATCH may change; everything else in the body is ignored. */
export const PATCHABLE_FIELDS = ['proxyId', 'runbookId', 'runbookName', 'inputSchema', 'params', 'schedule'] as const;

export class ScheduleBook {
  readonly byId = new Map<string, ScheduleRecord>();
  #seq = 0;
  #earliest: number | null | undefined;

  add(schedule: Schedule, createdMs: number, fromMs: number): ScheduleRecord {
    const cron = parseCron(schedule.schedule, 'schedule.schedule');
    const record: ScheduleRecord = {
      schedule,
      createdMs,
      seq: this.#seq++,
      cron,
      nextFireMs: nextFireAfter(cron, fromMs),
    };
    this.byId.set(schedule.id, record);
    this.#earliest = undefined;
    return record;
  }

  /** Applies the writable fields of a PATCH (already validated by the caller). */
  update(
    record: ScheduleRecord,
    patch: ScheduleWrite,
    extra: { proxyName?: string; lastUpdated: string },
    nowMs: number,
  ) {
    for (const field of PATCHABLE_FIELDS) {
      const value = patch[field];
      if (value !== undefined) record.schedule[field] = value;
    }
    if (extra.proxyName !== undefined) record.schedule.proxyName = extra.proxyName;
    record.schedule.lastUpdated = extra.lastUpdated;
    if (patch.schedule !== undefined) {
      record.cron = parseCron(patch.schedule, 'schedule');
      record.nextFireMs = nextFireAfter(record.cron, nowMs);
      this.#earliest = undefined;
    }
  }

  delete(id: string): boolean {
    const deleted = this.byId.delete(id);
    if (deleted) this.#earliest = undefined;
    return deleted;
  }

  /** Earliest pending firing across all schedules, or null. */
  earliestFireMs(): number | null {
    if (this.#earliest === undefined) {
      let earliest: number | null = null;
      for (const record of this.byId.values()) {
        if (record.nextFireMs !== null && (earliest === null || record.nextFireMs < earliest)) {
          earliest = record.nextFireMs;
        }
      }
      this.#earliest = earliest;
    }
    return this.#earliest;
  }

  /** The schedule with the earliest firing at or before nowMs (ties: older schedule first). */
  nextDue(nowMs: number): ScheduleRecord | undefined {
    const earliest = this.earliestFireMs();
    if (earliest === null || earliest > nowMs) return undefined;
    let best: ScheduleRecord | undefined;
    for (const record of this.byId.values()) {
      if (record.nextFireMs === null || record.nextFireMs > nowMs) continue;
      if (
        !best ||
        record.nextFireMs < best.nextFireMs! ||
        (record.nextFireMs === best.nextFireMs && record.seq < best.seq)
      ) {
        best = record;
      }
    }
    return best;
  }

  /** Moves a schedule past a firing. */
  advancePast(record: ScheduleRecord, firedMs: number): void {
    record.nextFireMs = nextFireAfter(record.cron, firedMs);
    this.#earliest = undefined;
  }

  /** Filtered, in creation order (ascending) or reversed. */
  select(terms: FilterTerm[], order: 'ascending' | 'descending'): ScheduleRecord[] {
    const predicate = compileScheduleFilter(terms);
    const records = [...this.byId.values()]
      .filter(predicate)
      .sort((a, b) => a.createdMs - b.createdMs || a.seq - b.seq);
    return order === 'descending' ? records.reverse() : records;
  }
}

function compileScheduleFilter(terms: FilterTerm[]): (r: ScheduleRecord) => boolean {
  const checks = terms.map((term): ((r: ScheduleRecord) => boolean) => {
    const lower = term.value.toLowerCase();
    switch (term.field) {
      case null:
      case 'runbookName':
        return (r) => r.schedule.runbookName.toLowerCase().includes(lower);
      case 'runbookId':
        return (r) => r.schedule.runbookId === term.value;
      case 'proxyId':
        return (r) => r.schedule.proxyId === term.value;
      case 'userEmail':
        return (r) => r.schedule.userEmail.toLowerCase() === lower;
      case 'id':
        return (r) => r.schedule.id === term.value;
      default:
        return () => false;
    }
  });
  return (r) => checks.every((check) => check(r));
}
