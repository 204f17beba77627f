// Deterministic randomness: the seeded catalog, history and fault sequences must be the same on
// every start so tests and benchmarks are reproducible.
import { createHash } from 'node:crypto';

export type Random = () => number;

/** mulberry32: tiny, fast, good enough for picking demo data and fault rolls. */
export function createRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A UUID (v4 layout) derived from a seed string, so seeded ids are stable across starts. */
export function uuidFromSeed(seed: string): string {
  const h = sha256Hex(seed);
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** 32-bit FNV-1a: a cheap stable hash for per-runbook defaults (durations, failing step). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
