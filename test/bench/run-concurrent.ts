// Runs `total` tasks with at most `inFlight` at a time, bounded by a deadline, so no benchmark
// loop can run away: tasks not started before the deadline are counted as skipped.

export interface ConcurrentResult {
  started: number;
  failed: number;
  errors: string[];
}

export async function runConcurrent(
  total: number,
  inFlight: number,
  task: (index: number) => Promise<void>,
  deadlineMs = 120_000,
): Promise<ConcurrentResult> {
  const stopAt = performance.now() + deadlineMs;
  let next = 0;
  let failed = 0;
  const errors: string[] = [];
  const worker = async () => {
    while (next < total && performance.now() < stopAt) {
      const index = next++;
      try {
        await task(index);
      } catch (err) {
        failed++;
        if (errors.length < 5) errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  return { started: next, failed, errors };
}

/** Samples process RSS every `everyMs` until stopped; returns the peak in bytes. */
export function sampleRss(everyMs = 250): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}
