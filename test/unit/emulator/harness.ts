// Starts an emulator on a ManualClock and offers a tiny fetch wrapper for route tests.
import { ManualClock } from '../../../src/emulator/clock.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../../src/emulator/server.ts';

export const START_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
export const KEY = 'k';

export interface Harness {
  emulator: Emulator;
  clock: ManualClock;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<CallResult>;
  get(path: string): Promise<CallResult>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  json: any;
  text: string;
}

export async function startHarness(options: Partial<EmulatorOptions> = {}): Promise<Harness> {
  const clock = new ManualClock(START_MS);
  const emulator = await startEmulator({ port: 0, apiKey: KEY, clock, ...options });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { 'X-Service-API-Key': KEY, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, text };
  };
  return { emulator, clock, call, get: (path) => call('GET', path) };
}

export function decodeOutput(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}
