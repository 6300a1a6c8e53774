import type { Db } from '../../db/database.ts';
import type { AccountKind } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../errors.ts';
import { readMoney } from '../../shared/money-input.ts';
import { urlRefusal } from './address-guard.ts';
import { emitWebhookEvent } from './emit.ts';
import { EVENT_TYPES_BY_KIND, TEST_EVENT_TYPE } from './event-types.ts';
import { generateWebhookSecret } from './signature.ts';
import {
  type DeliveryRow,
  deleteEndpoint,
  type EndpointFields,
  type EndpointRow,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  replaceSubscriptions,
  rotateEndpointSecret,
  scheduleDelivery,
  updateEndpoint,
} from './webhook-repository.ts';

export const DEFAULT_GRACE_SECONDS = 86_400;

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  active?: boolean;
  balanceThreshold?: number | string | null;
}

export interface Owner {
  accountId: number;
  kind: AccountKind;
}

/** The rules of an endpoint beyond its schema: a deliverable URL and events that concern the account. */
async function endpointProblems(owner: Owner, input: EndpointInput, allowPrivate: boolean): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  if (input.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(input.url);
    } catch {
      problems.push({ field: 'url', message: 'Must be an absolute https:// URL.' });
    }
    const refusal = url && (await urlRefusal(url, allowPrivate));
    if (refusal) problems.push({ field: 'url', message: refusal });
  }
  const allowed: readonly string[] = EVENT_TYPES_BY_KIND[owner.kind];
  const foreign = (input.events ?? []).filter((type) => !allowed.includes(type));
  if (foreign.length > 0) {
    problems.push({
      field: 'events',
      message: `Not events of this account: ${foreign.join(', ')}. Allowed: ${allowed.join(', ')}.`,
    });
  }
  return problems;
}

function thresholdMicros(value: number | string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  return readMoney(value, 'balanceThreshold', { sign: 'non-negative' });
}

export async function getEndpoint(db: Db, accountId: number, id: number): Promise<EndpointRow> {
  const endpoint = await findEndpoint(db, id, accountId);
  if (endpoint === undefined) throw notFound('Webhook endpoint');
  return endpoint;
}

/** Registers an endpoint with a new secret, which the answer shows this once. */
export async function createEndpoint(
  db: Db,
  owner: Owner,
  input: EndpointInput & { url: string; events: string[] },
  options: { allowPrivate: boolean; now: Date },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const problems = await endpointProblems(owner, input, options.allowPrivate);
  if (problems.length > 0) throw validationFailed(problems);
  const fields: EndpointFields = {
    url: input.url,
    description: input.description ?? '',
    active: input.active ?? true,
    balanceThresholdMicros: thresholdMicros(input.balanceThreshold) ?? null,
  };
  const secret = generateWebhookSecret();
  const id = await inTransaction(db, async (trx) => {
    const created = await insertEndpoint(trx, owner.accountId, fields, secret, options.now);
    await replaceSubscriptions(trx, created, input.events);
    return created;
  });
  return { endpoint: await getEndpoint(db, owner.accountId, id), secret };
}

export async function changeEndpoint(
  db: Db,
  owner: Owner,
  id: number,
  input: EndpointInput,
  options: { allowPrivate: boolean; now: Date },
): Promise<EndpointRow> {
  await getEndpoint(db, owner.accountId, id);
  const problems = await endpointProblems(owner, input, options.allowPrivate);
  if (problems.length > 0) throw validationFailed(problems);
  const fields: Partial<EndpointFields> = {
    url: input.url,
    description: input.description,
    active: input.active,
    balanceThresholdMicros: thresholdMicros(input.balanceThreshold),
  };
  await inTransaction(db, async (trx) => {
    await updateEndpoint(trx, id, fields, options.now);
    if (input.events !== undefined) await replaceSubscriptions(trx, id, input.events);
  });
  return getEndpoint(db, owner.accountId, id);
}

/** Removes an endpoint with its deliveries and their log. */
export async function removeEndpoint(db: Db, accountId: number, id: number): Promise<void> {
  await getEndpoint(db, accountId, id);
  await inTransaction(db, (trx) => deleteEndpoint(trx, id));
}

/** A new secret; the old one keeps signing beside it for `graceSeconds`, so receivers switch without a gap. */
export async function rotateSecret(
  db: Db,
  accountId: number,
  id: number,
  graceSeconds: number,
  now: Date,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  await getEndpoint(db, accountId, id);
  const secret = generateWebhookSecret();
  await db
    .transaction()
    .execute((trx) => rotateEndpointSecret(trx, id, secret, new Date(now.getTime() + graceSeconds * 1000), now));
  return { endpoint: await getEndpoint(db, accountId, id), secret };
}

/** Queues a webhook.test event for this endpoint alone, whatever it subscribed to; answers its delivery. */
export async function queueTestEvent(db: Db, accountId: number, id: number, now: Date): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(db, accountId, id);
  const eventId = await db
    .transaction()
    .execute((trx) =>
      emitWebhookEvent(trx, { type: TEST_EVENT_TYPE, accountId, data: { endpointId: endpoint.id, url: endpoint.url }, now }, [
        endpoint.id,
      ]),
    );
  const delivery = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('event_id', '=', eventId ?? '')
    .where('endpoint_id', '=', endpoint.id)
    .executeTakeFirst();
  if (delivery === undefined) throw new Error('the test delivery was not written');
  return getDelivery(db, accountId, id, delivery.id);
}

export async function getDelivery(db: Db, accountId: number, endpointId: number, deliveryId: number): Promise<DeliveryRow> {
  await getEndpoint(db, accountId, endpointId);
  const delivery = await findDelivery(db, endpointId, deliveryId);
  if (delivery === undefined) throw notFound('Delivery');
  return delivery;
}

/** Queues a delivery again now, delivered or failed or pending: the same event id, so receivers can deduplicate. */
export async function scheduleRedelivery(
  db: Db,
  accountId: number,
  endpointId: number,
  deliveryId: number,
  now: Date,
): Promise<DeliveryRow> {
  const delivery = await getDelivery(db, accountId, endpointId, deliveryId);
  if (delivery.claimed_until !== null && delivery.claimed_until > now) {
    throw invalidField('id', 'This delivery is being attempted right now.');
  }
  await scheduleDelivery(db, delivery.id, now);
  return getDelivery(db, accountId, endpointId, deliveryId);
}
