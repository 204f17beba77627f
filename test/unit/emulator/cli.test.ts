import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EMULATOR_DEFAULT_API_KEY } from '../../../src/config.ts';

const CLI = fileURLToPath(new URL('../../../src/emulator/cli.ts', import.meta.url));

async function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('emulator CLI', () => {
  it('prints its URL and key, serves with the default key and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--runbooks', '5', '--error-rate', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /Runbook API emulator listening on (http:\/\/\S+) \(X-Service-API-Key: (\S+)\)/.exec(stdout);
          if (match) resolve(match[0]);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      const [, url, key] = /on (\S+) \(X-Service-API-Key: (\S+)\)/.exec(line)!;
      expect(key).toBe(EMULATOR_DEFAULT_API_KEY);
      const res = await fetch(`${url}/v1alpha1/workflows?isService=true`, { headers: { 'X-Service-API-Key': key! } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { totalCount: number };
      expect(body.totalCount).toBeGreaterThanOrEqual(45);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('rejects an out-of-range fault flag', async () => {
    const { code, stderr } = await runToExit(['--error-rate', '3']);
    expect(code).toBe(2);
    expect(stderr).toContain('--error-rate must be a number between 0 and 1');
  });

  it('serves a --tenant KEY=NAME by its own key, with its own schedule ids', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--tenant', 'second-key=beta'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (http:\/\/\S+) [\s\S]*Tenant beta: X-Service-API-Key: second-key/.exec(stdout);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      const ids = async (key: string) => {
        const res = await fetch(`${url}/v1alpha1/schedules`, { headers: { 'X-Service-API-Key': key } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { schedules: Array<{ id: string }> }).schedules.map((s) => s.id);
      };
      const first = await ids(EMULATOR_DEFAULT_API_KEY);
      const second = await ids('second-key');
      expect(second).toHaveLength(first.length);
      expect(second.filter((id) => first.includes(id))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('rejects a --tenant without a name', async () => {
    const { code, stderr } = await runToExit(['--tenant', 'only-a-key']);
    expect(code).toBe(2);
    expect(stderr).toContain('--tenant must be KEY=NAME');
  });
});
