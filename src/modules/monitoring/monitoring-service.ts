import { timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { forbidden, unauthenticated } from '../../errors.ts';
import type { Principal } from '../../shared/principal.ts';

/** A dependency that does not answer within this long counts as down. */
const READINESS_TIMEOUT_MS = 2000;

export interface Readiness {
  status: 'ok' | 'unavailable';
  database: 'ok' | 'down';
  redis: 'ok' | 'down' | 'none';
  nats: 'ok' | 'down' | 'none';
}

/**
 * Whether the database and Redis (when configured) answer; ready when both do. NATS is reported
 * but does not make the instance unready: while it is away, clicks and views go to the database
 * (docs/operating.md), so a balancer must not take every instance out at once.
 */
export async function readiness(
  db: Db,
  redis: Redis | undefined,
  eventLogPing: (() => Promise<void> | undefined) | undefined,
): Promise<Readiness> {
  const ping = eventLogPing?.();
  const [database, redisState, nats] = await Promise.all([
    check(() => sql`SELECT 1`.execute(db)),
    redis ? check(() => redis.ping()) : Promise.resolve('none' as const),
    ping === undefined ? Promise.resolve('none' as const) : check(() => ping),
  ]);
  const ready = database === 'ok' && redisState !== 'down';
  return { status: ready ? 'ok' : 'unavailable', database, redis: redisState, nats };
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe().then(() => 'ok' as const), timeout]);
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** A scrape is allowed with the scraper's METRICS_TOKEN or an operator's API token. */
export async function authorizeScrape(
  token: string | undefined,
  dependencies: {
    metricsToken: string | undefined;
    authenticate: (token: string) => Principal | undefined | Promise<Principal | undefined>;
  },
): Promise<void> {
  if (token === undefined)
    throw unauthenticated('An operator token (Auth-Token) or METRICS_TOKEN (Authorization: Bearer) is required.');
  const expected = dependencies.metricsToken;
  if (expected !== undefined && sameSecret(token, expected)) return;
  const principal = await dependencies.authenticate(token);
  if (principal === undefined) throw unauthenticated();
  if (principal.kind !== 'operator') throw forbidden('Metrics are for operators only.');
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
