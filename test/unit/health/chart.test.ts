// The health chart: the series it is drawn from (checked on known days), and the PNG itself (Slack's
// image formats, fixed size, not blank, drawn in the outcome colours, different for different data).
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import {
  CHART_PIXELS,
  type ChartDay,
  dayLabel,
  durationUnitFor,
  healthChartData,
  renderHealthChart,
  stretchesOf,
} from '../../../src/health/chart.ts';

function day(n: number, counts: Partial<ChartDay> = {}): ChartDay {
  return {
    day: `2026-11-${String(n).padStart(2, '0')}`,
    succeeded: 0,
    failed: 0,
    other: 0,
    medianMs: null,
    ...counts,
  };
}

const BUSY: ChartDay[] = Array.from({ length: 30 }, (_, i) =>
  day(i + 1, {
    succeeded: (i * 7) % 5,
    failed: i % 4 === 0 ? 2 : 0,
    other: i === 29 ? 1 : 0,
    medianMs: i % 6 === 0 ? null : (2 + (i % 5)) * 60_000,
  }),
);
const QUIET: ChartDay[] = Array.from({ length: 30 }, (_, i) => day(i + 1));

describe('healthChartData', () => {
  it('draws one bar per day and outcome, and the median duration in a readable unit', () => {
    const data = healthChartData({
      runbookName: 'Restart Pods',
      days: [
        day(1, { succeeded: 3, failed: 1, medianMs: 4 * 60_000 + 30_000 }),
        day(2),
        day(3, { failed: 2, other: 1, medianMs: 90_000 }),
      ],
    });
    expect(data.labels).toEqual(['Nov 1', 'Nov 2', 'Nov 3']);
    expect(data.succeeded).toEqual([3, 0, 0]);
    expect(data.failed).toEqual([1, 0, 2]);
    expect(data.other).toEqual([0, 0, 1]);
    expect(data.durationUnit).toBe('min');
    expect(data.duration).toEqual([4.5, null, 1.5]);
    expect(data.totalRuns).toBe(7);
    expect(data.title).toBe('Restart Pods: runs per day and median duration, last 3 days');
  });

  it('picks seconds for short runs and hours for long ones', () => {
    expect(durationUnitFor(0)).toBe('s');
    expect(durationUnitFor(119_999)).toBe('s');
    expect(durationUnitFor(120_000)).toBe('min');
    expect(durationUnitFor(2 * 3_600_000)).toBe('h');
    const short = healthChartData({ runbookName: 'x', days: [day(1, { succeeded: 1, medianMs: 12_340 })] });
    expect(short).toMatchObject({ durationUnit: 's', duration: [12.3] });
    const long = healthChartData({ runbookName: 'x', days: [day(1, { succeeded: 1, medianMs: 9_000_000 })] });
    expect(long).toMatchObject({ durationUnit: 'h', duration: [2.5] });
  });

  it('treats nonsense counts and durations as nothing rather than drawing them', () => {
    const data = healthChartData({
      runbookName: 'x',
      days: [day(1, { succeeded: -2, failed: Number.NaN, other: 1.7, medianMs: -5 })],
    });
    expect(data).toMatchObject({ succeeded: [0], failed: [0], other: [1], duration: [null], totalRuns: 1 });
  });

  it('shortens a long runbook name in the title and flattens its whitespace', () => {
    const data = healthChartData({ runbookName: `  Very\n${'long '.repeat(30)}`, days: [day(1)] });
    expect(data.title.startsWith('Very long long')).toBe(true);
    expect(data.title).toContain('…: runs per day');
    expect(data.title).not.toContain('\n');
  });

  it('marks the days the runs read do not reach, in stretches', () => {
    const data = healthChartData({
      runbookName: 'x',
      days: [day(1, { covered: false }), day(2, { covered: false }), day(3), day(4, { covered: true })],
    });
    expect(data.uncovered).toEqual([true, true, false, false]);
    expect(stretchesOf([true, true, false, true, false, false, true])).toEqual([
      [0, 1],
      [3, 3],
      [6, 6],
    ]);
    expect(stretchesOf([false, false])).toEqual([]);
  });

  it('labels days by month and day, leaving anything unexpected as it is', () => {
    expect(dayLabel('2026-01-09')).toBe('Jan 9');
    expect(dayLabel('2026-12-31')).toBe('Dec 31');
    expect(dayLabel('yesterday')).toBe('yesterday');
  });
});

async function pixelsOf(png: Buffer): Promise<Uint8ClampedArray> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return ctx.getImageData(0, 0, image.width, image.height).data;
}

function pngSize(png: Buffer): { width: number; height: number } {
  // IHDR is the first chunk: width and height are the big-endian words at bytes 16 and 20.
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Pixels within a small distance of an RGB colour. */
function countNear(pixels: Uint8ClampedArray, hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  let n = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (Math.abs(pixels[i]! - r) + Math.abs(pixels[i + 1]! - g) + Math.abs(pixels[i + 2]! - b) < 30) n++;
  }
  return n;
}

describe('renderHealthChart', () => {
  it('is a PNG of the fixed size, opaque, and far from blank', async () => {
    const png = await renderHealthChart({ runbookName: 'Restart Pods', days: BUSY });
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(pngSize(png)).toEqual(CHART_PIXELS);
    const pixels = await pixelsOf(png);
    expect(pixels.length).toBe(CHART_PIXELS.width * CHART_PIXELS.height * 4);
    let transparent = 0;
    let sum = 0;
    let sumSquares = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i + 3]! < 255) transparent++;
      const grey = (pixels[i]! + pixels[i + 1]! + pixels[i + 2]!) / 3;
      sum += grey;
      sumSquares += grey * grey;
    }
    const count = pixels.length / 4;
    const variance = sumSquares / count - (sum / count) ** 2;
    expect(transparent).toBe(0);
    expect(variance).toBeGreaterThan(200);
    // The outcome colours are on it: green for succeeded, red for failed, blue for the duration line.
    expect(countNear(pixels, '#2eb67d')).toBeGreaterThan(5_000);
    expect(countNear(pixels, '#e01e5a')).toBeGreaterThan(2_000);
    expect(countNear(pixels, '#1264a3')).toBeGreaterThan(1_000);
  });

  it('differs for different data, and an empty month is still a readable chart without bars', async () => {
    const busy = await renderHealthChart({ runbookName: 'Restart Pods', days: BUSY });
    const again = await renderHealthChart({ runbookName: 'Restart Pods', days: BUSY });
    const quiet = await renderHealthChart({ runbookName: 'Restart Pods', days: QUIET });
    const fewerFailures = await renderHealthChart({
      runbookName: 'Restart Pods',
      days: BUSY.map((d, i) => (i === 4 ? { ...d, failed: 0 } : d)),
    });
    const [a, b, q, f] = await Promise.all([busy, again, quiet, fewerFailures].map(pixelsOf));
    const differing = (x: Uint8ClampedArray, y: Uint8ClampedArray) => {
      let n = 0;
      for (let i = 0; i < x.length; i += 4) if (x[i] !== y[i] || x[i + 1] !== y[i + 1] || x[i + 2] !== y[i + 2]) n++;
      return n;
    };
    expect(differing(a!, b!)).toBe(0);
    expect(differing(a!, q!)).toBeGreaterThan(50_000);
    // One day's two failures fewer: that bar is shorter, so some red pixels are gone.
    expect(differing(a!, f!)).toBeGreaterThan(500);
    expect(countNear(f!, '#e01e5a')).toBeLessThan(countNear(a!, '#e01e5a'));
    expect(pngSize(quiet)).toEqual(CHART_PIXELS);
    // Only the legend's swatches (about 650 pixels each) are left in the outcome colours.
    expect(countNear(q!, '#2eb67d')).toBeLessThan(1_500);
    expect(countNear(q!, '#e01e5a')).toBeLessThan(1_500);
  });

  it('shades the days the runs read do not reach', async () => {
    const shade = '#f0f0f2';
    const whole = await pixelsOf(await renderHealthChart({ runbookName: 'x', days: BUSY }));
    const partial = await pixelsOf(
      await renderHealthChart({
        runbookName: 'x',
        days: BUSY.map((d, i) => (i < 10 ? { ...day(i + 1), covered: false } : d)),
      }),
    );
    expect(countNear(whole, shade)).toBeLessThan(countNear(partial, shade) / 10);
    // A third of the plot's width, shaded: hundreds of thousands of pixels at this size.
    expect(countNear(partial, shade)).toBeGreaterThan(200_000);
  });
});
