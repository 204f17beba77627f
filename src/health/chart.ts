// A runbook's health as a picture: daily runs by outcome (stacked bars) and the day's median
// duration (a line on its own axis), drawn by Chart.js on a Skia canvas (@napi-rs/canvas, a prebuilt
// binary from the npm registry) and encoded as PNG. Nothing is fetched at run time: the font ships in
// an npm package (Inter, OFL) and is registered here, so the chart reads the same on a machine with no
// system fonts. Pure: per-day numbers in, PNG bytes out; the numbers the chart is drawn from come from
// `healthChartData`, which tests check on their own.
import { createRequire } from 'node:module';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  type Plugin,
  PointElement,
  Title,
} from 'chart.js';

/** One day of a runbook's executions (by their own start time), as the chart needs it. */
export interface ChartDay {
  /** The day, `YYYY-MM-DD` (UTC). */
  day: string;
  succeeded: number;
  failed: number;
  /** Runs neither succeeded nor failed (still running, or a status the API does not name). */
  other: number;
  /** Median duration of the day's finished runs in ms; null when none finished that day. */
  medianMs: number | null;
  /** False: the runs read do not reach back to this day, so its zeros mean "not known" (shaded). */
  covered?: boolean;
}

export interface HealthChartInput {
  runbookName: string;
  /** Oldest first; one entry per day of the window, days without runs included. */
  days: readonly ChartDay[];
}

/** The PNG is always this size (the canvas is drawn at twice the layout size for sharp text). */
export const CHART_LAYOUT = { width: 800, height: 400, scale: 2 } as const;
export const CHART_PIXELS = {
  width: CHART_LAYOUT.width * CHART_LAYOUT.scale,
  height: CHART_LAYOUT.height * CHART_LAYOUT.scale,
} as const;

const COLOURS = { succeeded: '#2eb67d', failed: '#e01e5a', other: '#9e9ea6', duration: '#1264a3' } as const;
const FONT_FAMILY = 'Inter';
const TITLE_MAX = 70;

export type DurationUnit = 's' | 'min' | 'h';

/** Exactly what the chart draws: one label per day and one value per series per day. */
export interface HealthChartData {
  title: string;
  labels: string[];
  succeeded: number[];
  failed: number[];
  other: number[];
  /** The day's median duration in `durationUnit`, rounded to one decimal; null where no run finished. */
  duration: Array<number | null>;
  durationUnit: DurationUnit;
  totalRuns: number;
  /** Days the runs read do not reach (shaded, with a note). */
  uncovered: boolean[];
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2026-11-03" → "Nov 3"; anything else is shown as given. */
export function dayLabel(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  return m && month ? `${month} ${Number(m[3])}` : day;
}

/** The unit that keeps the longest median readable: seconds under 2 min, hours from 2 h. */
export function durationUnitFor(longestMs: number): DurationUnit {
  if (longestMs < 2 * 60_000) return 's';
  if (longestMs < 2 * 3_600_000) return 'min';
  return 'h';
}

const UNIT_MS: Record<DurationUnit, number> = { s: 1000, min: 60_000, h: 3_600_000 };
const UNIT_WORD: Record<DurationUnit, string> = { s: 'seconds', min: 'minutes', h: 'hours' };

function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** The series the chart is drawn from. Pure. */
export function healthChartData(input: HealthChartInput): HealthChartData {
  const medians = input.days.map((d) =>
    d.medianMs !== null && Number.isFinite(d.medianMs) && d.medianMs >= 0 ? d.medianMs : null,
  );
  const unit = durationUnitFor(Math.max(0, ...medians.map((m) => m ?? 0)));
  const succeeded = input.days.map((d) => count(d.succeeded));
  const failed = input.days.map((d) => count(d.failed));
  const other = input.days.map((d) => count(d.other));
  const name = [...input.runbookName.replace(/\s+/g, ' ').trim()];
  const shortName = name.length > TITLE_MAX ? `${name.slice(0, TITLE_MAX - 1).join('')}…` : name.join('');
  return {
    title: `${shortName || 'Runbook'}: runs per day and median duration, last ${input.days.length} days`,
    labels: input.days.map((d) => dayLabel(d.day)),
    succeeded,
    failed,
    other,
    duration: medians.map((m) => (m === null ? null : Math.round((m / UNIT_MS[unit]) * 10) / 10)),
    durationUnit: unit,
    totalRuns: [...succeeded, ...failed, ...other].reduce((a, b) => a + b, 0),
    uncovered: input.days.map((d) => d.covered === false),
  };
}

let registered = false;

/**
 * Skia, loaded with the first chart: on a platform without its prebuilt binary the bot still starts and
 * answers with the numbers; only the chart fails (and the caller says so).
 */
async function skia(): Promise<typeof import('@napi-rs/canvas')> {
  const canvas = await import('@napi-rs/canvas');
  if (!registered) {
    Chart.register(
      BarController,
      BarElement,
      CategoryScale,
      LinearScale,
      LineController,
      LineElement,
      PointElement,
      Legend,
      Title,
    );
    const require = createRequire(import.meta.url);
    for (const weight of ['400Regular/Inter_400Regular.ttf', '600SemiBold/Inter_600SemiBold.ttf']) {
      canvas.GlobalFonts.registerFromPath(require.resolve(`@expo-google-fonts/inter/${weight}`), FONT_FAMILY);
    }
    registered = true;
  }
  return canvas;
}

/** Slack shows a transparent PNG on its own background (dark in dark mode): paint it white. */
const whiteBackground: Plugin = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

/** Runs of consecutive true values, as [first, last] index pairs. */
export function stretchesOf(flags: readonly boolean[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  flags.forEach((on, i) => {
    if (!on) return;
    const last = out[out.length - 1];
    if (last && last[1] === i - 1) last[1] = i;
    else out.push([i, i]);
  });
  return out;
}

/** Days the data does not reach: shaded behind the bars, with a word on each wide stretch. */
function uncoveredShade(uncovered: boolean[]): Plugin {
  return {
    id: 'uncoveredShade',
    beforeDatasetsDraw(chart) {
      const x = chart.scales.x;
      const stretches = stretchesOf(uncovered);
      if (!x || stretches.length === 0) return;
      const { ctx, chartArea } = chart;
      const half = uncovered.length > 1 ? (x.getPixelForValue(1) - x.getPixelForValue(0)) / 2 : chartArea.width / 2;
      ctx.save();
      ctx.font = `14px ${FONT_FAMILY}`;
      ctx.textAlign = 'center';
      for (const [first, last] of stretches) {
        const from = Math.max(chartArea.left, x.getPixelForValue(first) - half);
        const to = Math.min(chartArea.right, x.getPixelForValue(last) + half);
        ctx.fillStyle = '#f0f0f2';
        ctx.fillRect(from, chartArea.top, to - from, chartArea.height);
        if (to - from > 60) {
          ctx.fillStyle = '#616061';
          ctx.fillText('not read', (from + to) / 2, chartArea.top + 16);
        }
      }
      ctx.restore();
    },
  };
}

/** A line across an empty chart saying why it is empty. */
const emptyNote: Plugin = {
  id: 'emptyNote',
  afterDraw(chart) {
    const total = chart.data.datasets
      .filter((d) => d.type === 'bar')
      .flatMap((d) => d.data as number[])
      .reduce((a, b) => a + b, 0);
    if (total > 0) return;
    const { ctx, chartArea } = chart;
    ctx.save();
    ctx.fillStyle = '#616061';
    ctx.font = `17px ${FONT_FAMILY}`;
    ctx.textAlign = 'center';
    ctx.fillText(
      'No runs in this period',
      (chartArea.left + chartArea.right) / 2,
      (chartArea.top + chartArea.bottom) / 2,
    );
    ctx.restore();
  },
};

function configFor(data: HealthChartData): ChartConfiguration<'bar' | 'line', Array<number | null>, string> {
  const bar = (label: string, values: number[], colour: string) => ({
    type: 'bar' as const,
    label,
    data: values,
    backgroundColor: colour,
    stack: 'runs',
    yAxisID: 'runs',
    order: 2,
  });
  return {
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [
        bar('Succeeded', data.succeeded, COLOURS.succeeded),
        bar('Failed', data.failed, COLOURS.failed),
        bar('Other', data.other, COLOURS.other),
        {
          type: 'line' as const,
          label: `Median duration (${data.durationUnit})`,
          data: data.duration,
          borderColor: COLOURS.duration,
          backgroundColor: COLOURS.duration,
          borderWidth: 2,
          pointRadius: 3,
          spanGaps: true,
          yAxisID: 'duration',
          order: 1,
        },
      ],
    },
    options: {
      responsive: false,
      animation: false,
      devicePixelRatio: CHART_LAYOUT.scale,
      layout: { padding: 10 },
      font: { family: FONT_FAMILY, size: 14 },
      color: '#1d1c1d',
      plugins: {
        title: {
          display: true,
          text: data.title,
          color: '#1d1c1d',
          font: { family: FONT_FAMILY, size: 17, weight: 600 },
        },
        legend: {
          position: 'bottom',
          labels: {
            boxWidth: 16,
            font: { family: FONT_FAMILY, size: 14 },
            sort: (a, b) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0),
          },
        },
      },
      scales: {
        x: {
          stacked: true,
          grid: { display: false },
          ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 12, font: { family: FONT_FAMILY, size: 13 } },
        },
        runs: {
          type: 'linear',
          position: 'left',
          stacked: true,
          beginAtZero: true,
          suggestedMax: 4,
          ticks: { precision: 0, font: { family: FONT_FAMILY, size: 13 } },
          title: { display: true, text: 'runs', font: { family: FONT_FAMILY, size: 14 } },
        },
        duration: {
          type: 'linear',
          position: 'right',
          beginAtZero: true,
          grid: { drawOnChartArea: false },
          ticks: { font: { family: FONT_FAMILY, size: 13 } },
          title: {
            display: true,
            text: `median duration (${UNIT_WORD[data.durationUnit]})`,
            font: { family: FONT_FAMILY, size: 14 },
          },
        },
      },
    },
    plugins: [whiteBackground, uncoveredShade(data.uncovered), emptyNote],
  };
}

/** The chart as PNG bytes, CHART_PIXELS in size. */
export async function renderHealthChart(input: HealthChartInput): Promise<Buffer> {
  const { createCanvas } = await skia();
  const canvas = createCanvas(CHART_LAYOUT.width, CHART_LAYOUT.height);
  // Chart.js takes any 2D context; Skia's is one, typed apart from the DOM's.
  const chart = new Chart(canvas.getContext('2d') as never, configFor(healthChartData(input)));
  try {
    return await canvas.encode('png');
  } finally {
    chart.destroy();
  }
}
