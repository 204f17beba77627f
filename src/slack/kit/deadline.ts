// A view submission must be answered within Slack's 3 s, and what it does before the answer must
// fit: past the deadline nothing is started and the person is told so.
/** Work before the ack must fit Slack's 3 s; past this, nothing is started and the person is told. */
export const SUBMIT_DEADLINE_MS = 2_500;

export class DeadlineError extends Error {
  constructor() {
    super('deadline');
    this.name = 'DeadlineError';
  }
}

/** `work`, or a DeadlineError after `ms` (the work itself goes on; its result is ignored). */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
