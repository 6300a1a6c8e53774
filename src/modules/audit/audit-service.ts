import type { Db } from '../../db/database.ts';
import type { Actor } from '../../shared/actor.ts';
import { type AuditChange, type AuditFilter, insertAuditEntries, listAuditEntries } from './audit-repository.ts';

export type { AuditChange, AuditFilter };

/** The actor of the system's own work (the settlement of billed clicks): no account, no request. */
export const SYSTEM_ACTOR: Actor = {
  accountId: null,
  kind: 'system',
  tokenId: null,
  sessionId: null,
  remoteAddress: '',
  requestId: '',
};

/**
 * Records what an actor did, in the caller's transaction (docs/adr/0013): the entry commits or
 * rolls back with the action itself. Entries are append-only: the table refuses UPDATE and DELETE.
 */
export async function recordAudit(trx: Db, actor: Actor, change: AuditChange | readonly AuditChange[], now: Date): Promise<void> {
  await insertAuditEntries(trx, actor, Array.isArray(change) ? change : [change as AuditChange], now);
}

/** One page of entries, newest first. */
export async function auditPage(db: Db, filter: AuditFilter, limit: number, offset: number) {
  return listAuditEntries(db, filter, limit, offset);
}
