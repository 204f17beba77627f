// Caches the tests build once per machine (the packaged Postgres binaries and cluster, the packaged
// Chromium): under the system temp directory, built in a private sibling and renamed into place, so
// test workers and concurrent runs never see half of one.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** `name` in this user's cache folder (per uid: a cache root made it must not be reused by another user). */
export function cachePath(name: string): string {
  const root = path.join(tmpdir(), `runbook-bot-test-cache-${process.getuid?.() ?? 'user'}`);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  return path.join(root, name);
}

/** Builds `target` once; `build` fills the staging folder it is given. */
export async function buildOnce(target: string, build: (staging: string) => void | Promise<void>): Promise<string> {
  if (existsSync(target)) return target;
  const staging = `${target}.${process.pid}.${Date.now()}`;
  try {
    await build(staging);
    await rename(staging, target);
  } catch (err) {
    // Another worker or run finished first: theirs is as good as ours.
    if (!existsSync(target)) throw err;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}
