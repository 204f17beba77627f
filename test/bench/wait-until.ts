// Bounded polling for benchmark set-up and tear-down (never used inside a timed section).
export async function waitUntil(probe: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (probe()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return probe();
}
