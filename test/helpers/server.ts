import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { manualClock } from '../../src/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { generateSelfSigned, type TlsMaterial } from '../../src/tls.ts';
import { openTestDatabase } from './database.ts';
import { TestClient } from './http-client.ts';

let tlsMaterial: Promise<TlsMaterial> | undefined;
/** One certificate per test process: generating is cheap, but not free. */
export function testTls(): Promise<TlsMaterial> {
  tlsMaterial ??= generateSelfSigned();
  return tlsMaterial;
}

/** The pinned start of every test clock: 2026-03-10 12:00:00 UTC. */
export const TEST_EPOCH_MS = Date.UTC(2026, 2, 10, 12, 0, 0);

export interface TestServerOptions {
  /** Configuration to override (clock, rateLimitPerSecond, redisUrl, ...). */
  config?: Partial<Config>;
  /** Share a database with another server (e.g. two instances of one deployment). */
  database?: Database;
  /** Environment variables as the server would read them. */
  env?: Record<string, string>;
  /** Where the server's log goes (tests of what it logs); none by default. */
  logger?: { level: string; stream: { write(line: string): void } };
  /** Compile every route's schemas at start, as production did before they were compiled on first use. */
  eagerSchemas?: boolean;
}

export interface TestServer {
  url: string;
  server: RunningServer;
  clock: ReturnType<typeof manualClock>;
  /** A client authenticated as the bootstrap operator. */
  operator: TestClient;
  /** A client with no token. */
  anonymous: TestClient;
  tls: TlsMaterial;
  /** Creates an account through the operator API and returns its id, token and a client. */
  createAccount(
    type: 'advertiser' | 'publisher' | 'operator',
    fields?: Record<string, unknown>,
  ): Promise<{ id: number; token: string; client: TestClient }>;
  close(): Promise<void>;
}

let accountCounter = 0;

/**
 * Starts the real server on an ephemeral loopback port over TLS, on a fresh migrated database,
 * with a manual clock pinned at TEST_EPOCH_MS and a rate limit high enough not to interfere
 * (tests of the limit itself set `rateLimitPerSecond`).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-test-'));
  const clock = manualClock(TEST_EPOCH_MS);
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      // Test pages are served from 127.0.0.1; the invalid-traffic sweeps are run by the tests that test them.
      IVT_ALLOW_DEV_HOSTS: 'true',
      IVT_SWEEP_S: '0',
      // A click waits for its acceptance as long as a busy test machine needs; the tests of the
      // bound (a frozen database) set their own.
      CLICK_ACCEPT_TIMEOUT_MS: '30000',
      ...options.env,
    },
    // Redis gets seconds, not production's tens of milliseconds: on a loaded test machine a slow
    // answer would fall back to in-process counting, and tests of sharing would see that instead.
    {
      clock,
      rateLimitPerSecond: 10_000,
      sessionRateLimitPerSecond: 10_000,
      publicRateLimitPerSecond: 10_000,
      redisTimeoutMs: 5000,
      ...options.config,
    },
  );
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await openTestDatabase());
  const tls = await testTls();
  const server = await startServer(config, {
    database,
    tls,
    logger: options.logger ?? false,
    eagerSchemas: options.eagerSchemas,
  });
  // A shared database keeps its first server's operator; tests pass the token explicitly then.
  const operatorToken = server.bootstrapToken ?? '';
  const operator = new TestClient(server.url, tls.cert, operatorToken);
  if (!ownsDatabase) {
    // The database outlives this server: closing the app must not close it.
    server.context.database = { ...database, close: async () => undefined };
  }
  return {
    url: server.url,
    server,
    clock,
    operator,
    anonymous: operator.as(undefined),
    tls,
    async createAccount(type, fields = {}) {
      accountCounter += 1;
      const username = `${type}${accountCounter}_${process.pid}`;
      const created = await operator.post('/api/admin/users', { type, username, email: `${username}@example.test`, ...fields });
      if (created.status !== 201) throw new Error(`creating an account failed: ${created.status} ${created.text}`);
      const id = created.json<{ id: number }>().id;
      const issued = await operator.post(`/api/admin/users/${id}/tokens`, { name: 'test' });
      const token = issued.json<{ token: string }>().token;
      return { id, token, client: operator.as(token) };
    },
    async close() {
      operator.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
