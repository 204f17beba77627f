// Fault injection for /v1alpha1 routes: latency, 5xx (JSON or proxy-style HTML), 429 with
// Retry-After, and dropped connections. Rolls come from a seeded generator so a fault sequence
// is reproducible run to run.
import { z } from 'zod';
import { createRandom, type Random } from './random.ts';

export interface Faults {
  latencyMs: number;
  latencyJitterMs: number;
  errorRate: number;
  /** Statuses an injected error picks from, e.g. [500, 502, 503]. */
  errorStatuses: number[];
  rateLimitRate: number;
  retryAfterSeconds: number;
  /** Destroy the socket without answering. */
  dropRate: number;
  /** Answer injected 5xx with an HTML body, like a proxy in front of the service would. */
  htmlErrors: boolean;
}

export const DEFAULT_FAULTS: Faults = {
  latencyMs: 0,
  latencyJitterMs: 0,
  errorRate: 0,
  errorStatuses: [500, 502, 503],
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  dropRate: 0,
  htmlErrors: false,
};

const rate = z.number().min(0).max(1);
const millis = z.number().min(0).max(600_000);

/** Partial faults as accepted by options, the CLI and PUT /_admin/faults. */
export const FaultsPatch = z
  .object({
    latencyMs: millis,
    latencyJitterMs: millis,
    errorRate: rate,
    errorStatuses: z.array(z.number().int().min(400).max(599)).min(1),
    rateLimitRate: rate,
    retryAfterSeconds: z.number().int().min(0).max(86_400),
    dropRate: rate,
    htmlErrors: z.boolean(),
  })
  .partial()
  .strict();

export function mergeFaults(current: Faults, patch: Partial<Faults>): Faults {
  const parsed = FaultsPatch.parse(patch);
  const next = { ...current };
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  return next;
}

export type FaultDecision =
  | { kind: 'none'; delayMs: number }
  | { kind: 'drop'; delayMs: number }
  | { kind: 'rate-limit'; delayMs: number; retryAfterSeconds: number }
  | { kind: 'error'; delayMs: number; status: number; html: boolean };

export class FaultInjector {
  #faults: Faults;
  readonly #random: Random;

  constructor(initial: Partial<Faults> = {}, seed = 0x5eed) {
    this.#faults = mergeFaults(DEFAULT_FAULTS, initial);
    this.#random = createRandom(seed);
  }

  get faults(): Faults {
    return { ...this.#faults, errorStatuses: [...this.#faults.errorStatuses] };
  }

  set(patch: Partial<Faults>): void {
    this.#faults = mergeFaults(this.#faults, patch);
  }

  /** Decides what happens to one request. Drops win over rate limits, which win over errors. */
  decide(): FaultDecision {
    const f = this.#faults;
    const delayMs = f.latencyMs + (f.latencyJitterMs > 0 ? Math.round(this.#random() * f.latencyJitterMs) : 0);
    if (f.dropRate > 0 && this.#random() < f.dropRate) return { kind: 'drop', delayMs };
    if (f.rateLimitRate > 0 && this.#random() < f.rateLimitRate) {
      return { kind: 'rate-limit', delayMs, retryAfterSeconds: f.retryAfterSeconds };
    }
    if (f.errorRate > 0 && this.#random() < f.errorRate) {
      const status = f.errorStatuses[Math.floor(this.#random() * f.errorStatuses.length)] ?? 500;
      return { kind: 'error', delayMs, status, html: f.htmlErrors && status >= 500 };
    }
    return { kind: 'none', delayMs };
  }
}
