import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './network.ts';
import { waitFor } from './wait.ts';

/**
 * A Redis of the test's own (`redis-server` on a free loopback port, nothing saved to disk), for
 * tests that stop and start Redis under a running Nativa; the machine's shared Redis is never touched.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: it goes away mid-command, as a crashed or partitioned Redis does). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved); resolves once it answers PING. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function redisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why no private Redis can be started here, or undefined when one can. */
export function privateRedisMissing(): string | undefined {
  return redisServer() === undefined ? 'redis-server is not installed' : undefined;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = redisServer();
  if (binary === undefined) throw new Error('redis-server is not installed');
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const answers = async () => {
    const probe = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  const start = async () => {
    const started = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: 'ignore' },
    );
    child = started;
    await waitFor('the private Redis to answer', async () => started.exitCode === null && (await answers()), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url, port, start, stop, destroy: stop };
}
