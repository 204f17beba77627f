// The bot as a real process (`node src/main.ts` on the Node running the tests, which is the pinned
// Node 24 under npm): spawn with an env, wait for GET /healthz on its PORT, kill it (SIGKILL for
// crash tests) and restart it with the same env. Output is kept so a failure can show it.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface BotProcess {
  port: number;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: Promise<number | null>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function spawnBot(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<BotProcess> {
  const port = Number(env.PORT) || (await freePort());
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const bot: BotProcess = {
    port,
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (!gone) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (gone) throw new Error(`bot exited before it was healthy:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return bot;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await bot.kill('SIGKILL');
      throw new Error(`bot not healthy after ${options.timeoutMs ?? 15_000} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
