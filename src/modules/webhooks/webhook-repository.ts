import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../db/list.ts';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookEndpointsTable,
} from '../../db/schema.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable> & { events: string[] };
export type DeliveryRow = Selectable<WebhookDeliveriesTable> & { event_type: string };
export type AttemptRow = Selectable<WebhookAttemptsTable> & { event_id: string; event_type: string };

/** A claimed delivery with what sending it needs: the stored body and the endpoint's URL and secrets. */
export interface ClaimedDelivery {
  id: number;
  event_id: string;
  event_type: string;
  endpoint_id: number;
  attempts: number;
  created_at: Date;
  payload: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
}

export interface EndpointFields {
  url: string;
  description: string;
  active: boolean;
  balanceThresholdMicros: number | null;
}

export async function insertEndpoint(
  trx: Db,
  accountId: number,
  fields: EndpointFields,
  secret: string,
  now: Date,
): Promise<number> {
  const row = await trx
    .insertInto('webhook_endpoints')
    .values({
      account_id: accountId,
      url: fields.url,
      description: fields.description,
      active: fields.active,
      balance_threshold_micros: fields.balanceThresholdMicros,
      secret,
      previous_secret: null,
      previous_secret_until: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateEndpoint(trx: Db, id: number, fields: Partial<EndpointFields>, now: Date): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({
      url: fields.url,
      description: fields.description,
      active: fields.active,
      balance_threshold_micros: fields.balanceThresholdMicros,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

export async function replaceSubscriptions(trx: Db, endpointId: number, types: readonly string[]): Promise<void> {
  await trx.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', endpointId).execute();
  if (types.length === 0) return;
  await trx
    .insertInto('webhook_subscriptions')
    .values(types.map((type) => ({ endpoint_id: endpointId, event_type: type })))
    .execute();
}

export async function rotateEndpointSecret(trx: Db, id: number, secret: string, previousUntil: Date, now: Date): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_until: previousUntil, secret, updated_at: now }))
    .where('id', '=', id)
    .execute();
}

export async function deleteEndpoint(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

function endpointsWithEvents(db: Db) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll('webhook_endpoints')
    .select((eb) =>
      eb.fn
        .coalesce(
          eb
            .selectFrom('webhook_subscriptions')
            .select(sql<string>`string_agg(event_type, ',' ORDER BY event_type)`.as('types'))
            .whereRef('webhook_subscriptions.endpoint_id', '=', 'webhook_endpoints.id'),
          sql<string>`''`,
        )
        .as('event_list'),
    );
}

function withEvents<Row extends { event_list: string }>(row: Row): Omit<Row, 'event_list'> & { events: string[] } {
  const { event_list, ...rest } = row;
  return { ...rest, events: event_list === '' ? [] : event_list.split(',') };
}

/** One endpoint, of `accountId` when given (another account's endpoint is not found). */
export async function findEndpoint(db: Db, id: number, accountId?: number): Promise<EndpointRow | undefined> {
  let query = endpointsWithEvents(db).where('webhook_endpoints.id', '=', id);
  if (accountId !== undefined) query = query.where('webhook_endpoints.account_id', '=', accountId);
  const row = await query.executeTakeFirst();
  return row && withEvents(row);
}

export async function listEndpoints(
  db: Db,
  accountId: number,
  limit: number,
  offset: number,
): Promise<ListWithTotal<EndpointRow>> {
  const query = db.selectFrom('webhook_endpoints').where('account_id', '=', accountId);
  const page = await listWithTotal(query, (filtered) => filtered.select('id').orderBy('id').limit(limit).offset(offset));
  const ids = page.rows.map((row) => row.id);
  const rows =
    ids.length === 0 ? [] : await endpointsWithEvents(db).where('webhook_endpoints.id', 'in', ids).orderBy('id').execute();
  return { rows: rows.map(withEvents), total: page.total };
}

/** Writes an event; false when an event with its id exists already (it is not written again). */
export async function insertEvent(
  trx: Db,
  event: { id: string; type: string; accountId: number | null; payload: string; now: Date },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('webhook_events')
    .values({ id: event.id, type: event.type, account_id: event.accountId, payload: event.payload, created_at: event.now })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * One delivery of the event per active endpoint subscribed to its type: the account's own
 * endpoints and every operator's (platform-wide), or exactly `endpointIds` when given.
 */
export async function insertDeliveries(
  trx: Db,
  event: { id: string; type: string; accountId: number | null; now: Date; endpointIds?: readonly number[] },
): Promise<number> {
  const result = await trx
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'next_attempt_at', 'created_at'])
    .expression((eb) => {
      const columns = [
        sql<string>`${event.id}::text`.as('event_id'),
        'e.id',
        sql<Date>`${event.now}::timestamptz`.as('next_attempt_at'),
        sql<Date>`${event.now}::timestamptz`.as('created_at'),
      ] as const;
      if (event.endpointIds !== undefined) {
        const ids = event.endpointIds.length > 0 ? [...event.endpointIds] : [0];
        return eb.selectFrom('webhook_endpoints as e').select(columns).where('e.id', 'in', ids);
      }
      return eb
        .selectFrom('webhook_endpoints as e')
        .innerJoin('webhook_subscriptions as s', (join) =>
          join.onRef('s.endpoint_id', '=', 'e.id').on('s.event_type', '=', event.type),
        )
        .innerJoin('accounts as a', 'a.id', 'e.account_id')
        .select(columns)
        .where('e.active', '=', true)
        .where((where) =>
          where.or([
            ...(event.accountId === null ? [] : [where('e.account_id', '=', event.accountId)]),
            where('a.kind', '=', 'operator'),
          ]),
        );
    })
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Endpoints of these accounts subscribed to balance.below_threshold, with their thresholds. */
export async function balanceWatchers(db: Db, accountIds: readonly number[]) {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('webhook_subscriptions as s', (join) =>
      join.onRef('s.endpoint_id', '=', 'e.id').on('s.event_type', '=', 'balance.below_threshold'),
    )
    .select(['e.id', 'e.account_id', 'e.balance_threshold_micros'])
    .where('e.account_id', 'in', [...accountIds])
    .where('e.active', '=', true)
    .where('e.balance_threshold_micros', 'is not', null)
    .execute();
}

const claimedColumns = [
  'd.id',
  'd.event_id',
  'd.endpoint_id',
  'd.attempts',
  'd.created_at',
  'ev.type as event_type',
  'ev.payload',
  'e.url',
  'e.secret',
  'e.previous_secret',
  'e.previous_secret_until',
] as const;

async function withSendingData(db: Db, ids: readonly number[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(claimedColumns)
    .where('d.id', 'in', [...ids])
    .orderBy('d.id')
    .execute();
}

/**
 * Takes up to `limit` due deliveries for this instance until `leaseUntil`. Rows another instance
 * is claiming at this moment are skipped (SKIP LOCKED) and rows under its lease are not due, so no
 * delivery is sent by two instances at once.
 */
export async function claimDueDeliveries(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ claimed_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('next_attempt_at', '<=', now)
        .where('status', '=', 'pending')
        .where((inner) => inner.or([inner('claimed_until', 'is', null), inner('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning('id')
    .execute();
  return withSendingData(
    db,
    claimed.map((row) => row.id),
  );
}

/** Takes one delivery, whatever its status, unless another instance holds it (a redelivery). */
export async function claimDelivery(db: Db, id: number, now: Date, leaseUntil: Date): Promise<ClaimedDelivery | undefined> {
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ claimed_until: leaseUntil })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .returning('id')
    .executeTakeFirst();
  if (claimed === undefined) return undefined;
  return (await withSendingData(db, [claimed.id]))[0];
}

export async function insertAttempt(
  db: Db,
  attempt: {
    deliveryId: number;
    endpointId: number;
    at: Date;
    statusCode: number | null;
    latencyMs: number;
    error: string;
    responseExcerpt: string;
  },
): Promise<void> {
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: attempt.deliveryId,
      endpoint_id: attempt.endpointId,
      attempted_at: attempt.at,
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error.slice(0, 1000),
      response_excerpt: attempt.responseExcerpt,
    })
    .execute();
}

/**
 * Switches an endpoint off after a delivery to it failed for good; answers its owner and address
 * when this switched it off (undefined when it was off already or is gone).
 */
export async function disableFailingEndpoint(trx: Db, id: number, now: Date) {
  return trx
    .updateTable('webhook_endpoints')
    .set({ active: false, updated_at: now })
    .where('id', '=', id)
    .where('active', '=', true)
    .returning(['id', 'account_id', 'url'])
    .executeTakeFirst();
}

/** Records an attempt's outcome and releases the lease; `nextAttemptAt` null ends automatic attempts. */
export async function settleDelivery(
  db: Db,
  id: number,
  outcome: { status: WebhookDeliveryStatus; at: Date; nextAttemptAt: Date | null },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: outcome.nextAttemptAt,
      claimed_until: null,
      delivered_at: outcome.status === 'delivered' ? outcome.at : eb.ref('delivered_at'),
    }))
    .where('id', '=', id)
    .execute();
}

export async function findDelivery(db: Db, endpointId: number, id: number): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .selectAll('d')
    .select('ev.type as event_type')
    .where('d.id', '=', id)
    .where('d.endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

export async function listDeliveries(
  db: Db,
  endpointId: number,
  status: WebhookDeliveryStatus | undefined,
  limit: number,
  offset: number,
): Promise<ListWithTotal<DeliveryRow>> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .where('d.endpoint_id', '=', endpointId);
  if (status !== undefined) query = query.where('d.status', '=', status);
  return listWithTotal(query, (filtered) =>
    filtered.selectAll('d').select('ev.type as event_type').orderBy('d.id', 'desc').limit(limit).offset(offset),
  );
}

export async function listAttempts(
  db: Db,
  endpointId: number,
  limit: number,
  offset: number,
): Promise<ListWithTotal<AttemptRow>> {
  const query = db
    .selectFrom('webhook_attempts as t')
    .innerJoin('webhook_deliveries as d', 'd.id', 't.delivery_id')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .where('t.endpoint_id', '=', endpointId);
  return listWithTotal(query, (filtered) =>
    filtered.selectAll('t').select(['d.event_id', 'ev.type as event_type']).orderBy('t.id', 'desc').limit(limit).offset(offset),
  );
}

/** Puts a delivery back in the queue now (redelivery on demand), whatever its status. */
export async function scheduleDelivery(db: Db, id: number, at: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: at }).where('id', '=', id).execute();
}
