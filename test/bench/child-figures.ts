// What the tenants benchmark's child processes report about themselves: from `sampleSelf()` on, their
// memory sampled every 250 ms; `figures()` gives the peaks (RSS, V8's heap total) with the CPU time (user +
// system) and the wall time since, printed by the child as one JSON line when it is told to stop.

export interface ChildFigures {
  peakRss: number;
  peakHeap: number;
  cpuMs: number;
  wallMs: number;
}

export function sampleSelf(): { figures: () => ChildFigures } {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapTotal);
  };
  sample();
  const sampler = setInterval(sample, 250);
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  return {
    figures: () => {
      clearInterval(sampler);
      const cpu = process.cpuUsage(cpuAtStart);
      return { peakRss, peakHeap, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - startedAt };
    },
  };
}
