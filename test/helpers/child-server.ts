import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './network.ts';

export { freePort };

/**
 * The real server as a child process (`nativa serve`) on a DATA_DIR, for tests that kill it: crash
 * tests need a process the test can SIGKILL without killing itself.
 */

const ROOT = path.join(import.meta.dirname, '..', '..');

export interface ChildResponse {
  status: number;
  location?: string;
  body: string;
}

/** One HTTPS request; `body` is sent as JSON. Rejects when the connection dies. */
export function request(
  agent: https.Agent,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<ChildResponse> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const outgoing = https.request(url, { method, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** A fresh PostgreSQL database when TEST_DATABASE_URL is set (else undefined: embedded PGlite). */
export async function createCrashDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return undefined;
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** Starts `nativa serve` and resolves once /api/health answers 200 `ok` (by default within 30 s). */
export async function startChildServer(options: {
  dataDir: string;
  port: number;
  databaseUrl?: string;
  env?: Record<string, string>;
  /** Options for `node` itself, before the script (bench/memory.ts passes those of `npm start`). */
  nodeArgs?: string[];
  /** The script to run, from the project's root: the sources' CLI by default, or `npm start`'s build. */
  entry?: string;
  /** How long to wait for the first answer, in ms (a first start runs every migration). */
  startTimeoutMs?: number;
  /** Called with each chunk of the server's stdout (its log), which is otherwise ignored. */
  onOutput?: (text: string) => void;
}): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), path.join(ROOT, options.entry ?? 'src/cli/main.ts'), 'serve'],
    {
      env: {
        ...process.env,
        DATA_DIR: options.dataDir,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: options.databaseUrl ?? '',
        // As startTestServer: pages on 127.0.0.1 are the sites', the invalid-traffic sweeps stay off,
        // the per-address limit of the sign-in routes does not meet the tests' own traffic, and a
        // click waits for its acceptance as long as a busy machine needs.
        IVT_ALLOW_DEV_HOSTS: 'true',
        IVT_SWEEP_S: '0',
        PUBLIC_RATE_LIMIT_RPS: '10000',
        CLICK_ACCEPT_TIMEOUT_MS: '30000',
        ...options.env,
      },
      stdio: ['ignore', options.onOutput === undefined ? 'ignore' : 'pipe', 'pipe'],
    },
  );
  const onOutput = options.onOutput;
  if (onOutput !== undefined) child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const agent = new https.Agent({ rejectUnauthorized: false });
  try {
    const attempts = (options.startTimeoutMs ?? 30_000) / 100;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`server exited: ${errors}`);
      try {
        // The header matters only behind TRUST_PROXY, where a request without it is refused.
        const health = await request(agent, 'GET', `https://127.0.0.1:${options.port}/api/health`, {
          headers: { 'X-Forwarded-Proto': 'https' },
        });
        // `starting` is the port held while start-up waits for the database, not the server yet.
        if (health.status === 200 && health.body.includes('"ok"')) return child;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    agent.destroy();
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${errors}`);
}

/** Kills the child with `signal` and waits until it has exited. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
