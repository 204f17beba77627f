// Percentiles and summaries computed here (not by a library) so every figure in the table is
// derived the same way: nearest-rank percentiles over the raw samples of one run.

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) {
    return {
      count: 0,
      min: Number.NaN,
      p50: Number.NaN,
      p90: Number.NaN,
      p99: Number.NaN,
      max: Number.NaN,
      mean: Number.NaN,
    };
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    min: sorted[0]!,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: sorted[sorted.length - 1]!,
    mean: sum / sorted.length,
  };
}

/** ours / baseline, or NaN when either side is missing. */
export function ratio(ours: number, baseline: number): number {
  if (!Number.isFinite(ours) || !Number.isFinite(baseline) || baseline === 0) return Number.NaN;
  return ours / baseline;
}
