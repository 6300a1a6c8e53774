import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipUnlessRunnable } from '../helpers/chaos.ts';
import { freePort, request, startChildServer, stopChild } from '../helpers/child-server.ts';
import { type PrivatePostgres, privatePostgresMissing, startPrivatePostgres } from '../helpers/private-postgres.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Starting while PostgreSQL is down (docs/operating.md, "When a dependency fails"): the process
 * does not exit and does not wait with its port closed; it listens at once, answers liveness
 * `starting`, readiness 503 naming the database and every other request 503 with Retry-After,
 * retries the database with backoff for as long as it takes, and once PostgreSQL is started
 * migrates and becomes ready by itself. With DATABASE_WAIT_SECONDS=0 it exits at once instead.
 */

/** What the log lines of the child (JSON, one per line) said. */
function messages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg ?? ''));
}

describe('start-up while PostgreSQL is down', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-chaos-pg-start-'));
  let postgres: PrivatePostgres | undefined;
  const children: ChildProcess[] = [];
  const agent = new https.Agent({ rejectUnauthorized: false });
  const missing = privatePostgresMissing();

  before(async () => {
    if (missing === undefined) {
      postgres = await startPrivatePostgres();
      await postgres.stop('fast');
    }
  });

  after(async () => {
    agent.destroy();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await postgres?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('with DATABASE_WAIT_SECONDS=0 exits at once, naming the database', async (t) => {
    if (skipUnlessRunnable(t, missing) || postgres === undefined) return;
    const named = `127.0.0.1:${postgres.port} (DATABASE_URL=${postgres.url})`;
    await assert.rejects(
      startChildServer({ dataDir, port: await freePort(), databaseUrl: postgres.url, env: { DATABASE_WAIT_SECONDS: '0' } }),
      (error: Error) => {
        assert.match(error.message, /cannot reach the database at/);
        assert.ok(error.message.includes(named), `the error names ${named}: ${error.message}`);
        return true;
      },
    );
  });

  it('by default listens at once, not ready, waits as long as it takes, then migrates and becomes ready', async (t) => {
    if (skipUnlessRunnable(t, missing) || postgres === undefined) return;
    const server = postgres;
    const port = await freePort();
    const base = `https://127.0.0.1:${port}`;
    const named = `127.0.0.1:${server.port} (DATABASE_URL=${server.url})`;
    let output = '';
    const spawnedAt = Date.now();
    const starting = startChildServer({
      dataDir,
      port,
      databaseUrl: server.url,
      // No DATABASE_WAIT_SECONDS: the default is the behaviour under test.
      env: { LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      startTimeoutMs: 55_000,
      onOutput: (text) => {
        output += text;
      },
    });
    starting.catch(() => undefined);

    const live = await waitFor(
      'liveness to answer while the database is down',
      () => request(agent, 'GET', `${base}/api/health`).catch(() => undefined),
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const answeringAfterMs = Date.now() - spawnedAt;
    assert.ok(live !== undefined);
    assert.equal(live.status, 200);
    assert.deepEqual(JSON.parse(live.body), { status: 'starting' });
    const ready = await request(agent, 'GET', `${base}/api/health/ready`);
    assert.equal(ready.status, 503, 'not ready while the database is down');
    assert.deepEqual(JSON.parse(ready.body), { status: 'unavailable', database: 'down', redis: 'none', nats: 'none' });
    const api = await request(agent, 'GET', `${base}/api/me`);
    assert.equal(api.status, 503, api.body);
    assert.equal((JSON.parse(api.body) as { code: number }).code, 9001, 'database_unavailable');

    // It keeps trying, with backoff, and says what it waits for each time.
    await waitFor('three attempts', () => messages(output).filter((line) => line.startsWith('waiting for')).length >= 3, {
      timeoutMs: 20_000,
    });
    const waiting = messages(output).filter((line) => line.startsWith('waiting for'));
    assert.ok(waiting[0]?.includes(`the database at ${named}`), `it names the database: ${waiting[0]}`);
    const stillWaiting = await request(agent, 'GET', `${base}/api/health/ready`);
    assert.equal(stillWaiting.status, 503, 'still not ready, still answering');

    await server.start();
    const upAt = Date.now();
    const child = await starting;
    children.push(child);
    const readyAgain = await waitFor(
      'readiness 200',
      async () => {
        const answer = await request(agent, 'GET', `${base}/api/health/ready`).catch(() => undefined);
        return answer?.status === 200 ? answer : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const readyAfterMs = Date.now() - upAt;
    assert.ok(readyAgain !== undefined);
    assert.deepEqual(JSON.parse(readyAgain.body), { status: 'ok', database: 'ok', redis: 'none', nats: 'none' });
    assert.ok(
      messages(output).some((line) => line.startsWith(`the database at ${named} answers after`)),
      'it says when the database answered',
    );
    const attempts = messages(output).filter((line) => line.startsWith('waiting for')).length;
    const me = await request(agent, 'GET', `${base}/api/me`);
    assert.equal(me.status, 401, 'the API answers (unauthenticated) once started');

    await stopChild(child, 'SIGTERM');
    assert.equal(child.exitCode, 0);
    process.stdout.write(
      `# postgres start-up: answering 'starting' ${answeringAfterMs} ms after spawn; ${attempts} attempts while down; migrated and ready ${readyAfterMs} ms after PostgreSQL was up\n`,
    );
  });
});
