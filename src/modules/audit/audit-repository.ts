import { type RawBuilder, sql } from 'kysely';
import type { Db, NamedWrite } from '../../db/database.ts';
import { listWithTotal } from '../../db/list.ts';
import type { Actor } from '../../shared/actor.ts';
import { truncatedAddressText } from '../../shared/stored-address.ts';

/** What an action did to one object; `before`/`after` are its fields that matter, as JSON. */
export interface AuditChange {
  action: string;
  objectType: string;
  objectId: string | number;
  /** The account the object belongs to (the credited account, the paid publisher), which may read the entry. */
  subjectAccountId?: number | null;
  before?: unknown;
  after?: unknown;
}

export interface AuditFilter {
  /** Entries made by this account or about it. */
  accountId?: number;
  /** Only entries this account made. */
  actorId?: number;
  actorKind?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  from?: Date;
  to?: Date;
}

const json = (value: unknown) => (value === undefined ? null : (JSON.stringify(value) as unknown));

export async function insertAuditEntries(trx: Db, actor: Actor, changes: readonly AuditChange[], now: Date): Promise<void> {
  if (changes.length === 0) return;
  await trx
    .insertInto('audit_entries')
    .values(
      changes.map((change) => ({
        account_id: actor.accountId,
        token_id: actor.tokenId,
        session_id: actor.sessionId,
        actor_kind: actor.kind,
        remote_address: truncatedAddressText(actor.remoteAddress),
        request_id: actor.requestId,
        action: change.action,
        object_type: change.objectType,
        object_id: String(change.objectId),
        subject_account_id: change.subjectAccountId ?? null,
        before: json(change.before),
        after: json(change.after),
        created_at: now,
      })),
    )
    .execute();
}

export async function listAuditEntries(db: Db, filter: AuditFilter, limit: number, offset: number) {
  let query = db.selectFrom('audit_entries');
  if (filter.accountId !== undefined) {
    const accountId = filter.accountId;
    query = query.where((eb) => eb.or([eb('account_id', '=', accountId), eb('subject_account_id', '=', accountId)]));
  }
  if (filter.actorId !== undefined) query = query.where('account_id', '=', filter.actorId);
  if (filter.actorKind !== undefined) query = query.where('actor_kind', '=', filter.actorKind);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
  if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id', 'desc').limit(limit).offset(offset));
}

/**
 * The audit entry of one settlement of billed clicks, as a data-modifying statement that runs
 * inside the settlement's own statement (postLedgerChanges' `alongside`) when `guard` holds. The
 * system is the actor; the time is the database's (the settlement has no request clock).
 */
export function systemAuditWrite(name: string, change: AuditChange, guard: RawBuilder<boolean>): NamedWrite {
  return {
    name,
    statement: sql`
      INSERT INTO audit_entries (actor_kind, action, object_type, object_id, subject_account_id, before, after, created_at)
      SELECT 'system', ${change.action}, ${change.objectType}, ${String(change.objectId)}, ${change.subjectAccountId ?? null}::integer,
        ${json(change.before)}::jsonb, ${json(change.after)}::jsonb, statement_timestamp()
      WHERE ${guard}
      RETURNING 1`,
  };
}

/**
 * The latest rejection of each of these objects: the newest `<objectType>.moderate` entry whose
 * status after it is 2 (a rejected campaign or ad, a banned site), with its reason and time.
 */
export async function findLastRejections(db: Db, objectType: string, objectIds: readonly number[]) {
  if (objectIds.length === 0) return [];
  const { rows } = await sql<{ object_id: string; reason: string | null; created_at: Date }>`
    SELECT DISTINCT ON (object_id) object_id, after->>'reason' AS reason, created_at
    FROM audit_entries
    WHERE action = ${`${objectType}.moderate`} AND object_type = ${objectType}
      AND object_id IN (${sql.join(objectIds.map(String))})
      AND after->>'status' = '2'
    ORDER BY object_id, created_at DESC, id DESC`.execute(db);
  return rows;
}
