import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { IdempotencyStore, StoredAnswer } from '../shared/idempotency-store.ts';
import { DomainError, invalidField } from './errors.ts';
import { errorResponses } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route creates something or moves money: it accepts an `Idempotency-Key` header, and its
     * handler writes through `inRequestTransaction` (request-write.ts). See docs/adr/0012.
     */
    idempotent?: boolean;
  }
}

export interface IdempotencyDependencies {
  db: Db;
  clock: Clock;
  store: IdempotencyStore;
  /**
   * Test only (NATIVA_TEST_CRASH_AFTER_COMMIT): the process kills itself right after a keyed
   * request commits and before it answers, so a crash test can retry against a restarted server.
   */
  crashAfterCommit?: boolean;
}

/** Keys are answered for 24 hours after the first request; a later request with the key is a new request. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

const HEADER = 'idempotency-key';
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** Headers that belong to one response and never to its replay. */
const UNSTORED_HEADERS = new Set(['set-cookie', 'content-length', 'content-type', 'etag', 'vary']);

const IdempotencyHeaders = Type.Object({
  [HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_KEY_LENGTH,
      description:
        'A key of your choosing (1–255 characters, unique per request you mean) that makes a retry safe: for 24 hours the same key with the same request answers the first response again, marked `Idempotent-Replayed: true`, and changes nothing; with another request it is a 422; while the first is still running, a 409.',
    }),
  ),
});

/** A keyed request's marker in the replay's headers. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Idempotency-Key on every route whose config says `idempotent: true` (docs/adr/0012): the route
 * documents the header (and its 409/422), and its handler is wrapped so that a keyed request runs
 * in one transaction that takes the key's lock, replays a stored answer or runs the handler, and
 * stores the handler's answer before committing. The answer is stored as the handler returned it
 * and serialized again for each replay, so a retry may ask for JSON or XML.
 */
export function registerIdempotency(app: FastifyInstance, dependencies: IdempotencyDependencies): void {
  // Keys of this instance's requests in flight: a retry on the same instance is a 409 at once,
  // even on the embedded database, whose one connection runs transactions one after another.
  const running = new Set<string>();
  app.decorateRequest('writeTransaction', undefined);
  const sweep = setInterval(() => {
    const notBefore = new Date(dependencies.clock.now() - KEY_LIFETIME_MS);
    dependencies.store
      .sweep(dependencies.db, notBefore)
      .catch((error: unknown) => app.log.error({ err: error }, 'idempotency sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweep);
    done();
  });
  app.addHook('onRoute', (routeOptions) => {
    const config = routeOptions.config as { idempotent?: boolean } | undefined;
    if (config?.idempotent !== true) return;
    const schema = (routeOptions.schema ?? {}) as { headers?: unknown; response?: Record<number, unknown> };
    schema.headers = IdempotencyHeaders;
    schema.response = { ...errorResponses(409, 422), ...schema.response };
    routeOptions.schema = schema as typeof routeOptions.schema;
    routeOptions.handler = keyedHandler(routeOptions.handler as RouteHandlerMethod, dependencies, running);
  });
}

function keyedHandler(
  handler: RouteHandlerMethod,
  dependencies: IdempotencyDependencies,
  running: Set<string>,
): RouteHandlerMethod {
  const { db, clock, store } = dependencies;
  return async function idempotent(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers[HEADER];
    const accountId = request.principal?.accountId;
    if (key === undefined || accountId === undefined) return handler.call(this, request, reply);
    if (typeof key !== 'string') throw invalidField('Idempotency-Key', 'Send the header once.');
    const slot = `${accountId}:${key}`;
    if (running.has(slot)) throw inFlight();
    running.add(slot);
    const requestHash = requestHashOf(request);
    const headersBefore = new Set(Object.keys(reply.getHeaders()));
    const statusBefore = reply.statusCode;
    const attempt = () =>
      db.transaction().execute(async (trx) => {
        const now = new Date(clock.now());
        const notBefore = new Date(now.getTime() - KEY_LIFETIME_MS);
        const { locked, stored } = await store.lockAndFind(trx, accountId, key, notBefore);
        if (!locked) throw inFlight();
        if (stored !== undefined) return replay(reply, stored, requestHash);
        request.writeTransaction = trx;
        const body = await handler.call(this, request, reply);
        const answered = {
          requestHash,
          status: reply.statusCode,
          headers: headersSetSince(reply, headersBefore),
          body: body ?? null,
        };
        if (!(await store.save(trx, accountId, key, answered, now, notBefore))) throw new AnsweredMeanwhile();
        return body;
      });
    let answer: unknown;
    try {
      try {
        answer = await attempt();
      } catch (error) {
        if (!(error instanceof AnsweredMeanwhile)) throw error;
        // The lock's previous holder stored its answer between this attempt's read and its lock
        // (IdempotencyStore.lockAndFind): this attempt is rolled back, and the next one replays it.
        request.writeTransaction = undefined;
        for (const name of Object.keys(reply.getHeaders())) if (!headersBefore.has(name)) reply.removeHeader(name);
        reply.code(statusBefore);
        answer = await attempt().catch((again: unknown) => {
          throw again instanceof AnsweredMeanwhile ? inFlight() : again;
        });
      }
    } finally {
      request.writeTransaction = undefined;
      running.delete(slot);
    }
    if (dependencies.crashAfterCommit) process.kill(process.pid, 'SIGKILL');
    return answer;
  };
}

/** The key's answer was stored by another transaction after this one looked for it: nothing of this one is kept. */
class AnsweredMeanwhile extends Error {}

function inFlight(): DomainError {
  return new DomainError(
    'idempotency_in_flight',
    'A request with this Idempotency-Key is still running. Retry it when that one has answered.',
  );
}

function replay(reply: FastifyReply, stored: StoredAnswer, requestHash: string): unknown {
  if (stored.requestHash !== requestHash) {
    throw invalidField('Idempotency-Key', 'This key was already used with a different request; use a new key for a new request.');
  }
  reply.code(stored.status);
  for (const [name, value] of Object.entries(stored.headers)) reply.header(name, value);
  reply.header(REPLAYED_HEADER, 'true');
  return stored.body;
}

/** The headers the handler set (Location): the rest belong to this response's conventions. */
function headersSetSince(reply: FastifyReply, before: Set<string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (before.has(name) || UNSTORED_HEADERS.has(name) || name.startsWith('x-rate-limit') || value === undefined) continue;
    headers[name] = String(value);
  }
  return headers;
}

/** Method, path and the validated input with its keys in order: the same request gives the same hash. */
export function requestHashOf(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? '/';
  return hash('sha256', JSON.stringify([request.method, path, canonical(request.body ?? null)]), 'base64url');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  return Object.fromEntries(
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, item]) => [name, canonical(item)]),
  );
}
