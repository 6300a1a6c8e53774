import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import type { Actor } from '../shared/actor.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The transaction an idempotent route's handler runs in (see idempotency.ts); unset elsewhere. */
    writeTransaction: Db | undefined;
  }
}

/**
 * "The write of this request": runs `work` in the transaction the request already has (an
 * idempotent route's, where its key is claimed and its answer stored), or in a new one. Whatever
 * `work` writes (the effect, its audit entry) commits or rolls back with the key.
 */
export function inRequestTransaction<T>(request: FastifyRequest, db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return inTransaction(request.writeTransaction ?? db, work);
}

/** The handle a request writes through: its idempotent transaction when it has one, else the database. */
export function requestDb(request: FastifyRequest, db: Db): Db {
  return request.writeTransaction ?? db;
}

/** The authenticated caller of a request, for the audit trail. */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  return {
    accountId: principal?.accountId ?? null,
    kind: principal?.kind ?? 'anonymous',
    tokenId: principal !== undefined && principal.tokenId !== 0 ? principal.tokenId : null,
    sessionId: principal?.sessionId ?? null,
    remoteAddress: request.ip,
    requestId: String(request.id),
  };
}
