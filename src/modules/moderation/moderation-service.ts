import type { Db } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import type { Actor } from '../../shared/actor.ts';
import { recordAudit } from '../audit/index.ts';
import { emitWebhookEvent } from '../webhooks/index.ts';
import { announceDecision } from './decision-notice.ts';
import type { ModeratedKind, WantedDecision } from './moderated-kind.ts';

/**
 * Writes a decision on a campaign, an ad or a site and, in the same transaction, fires its
 * `*.moderated` webhook and tells the owner (notification and e-mail), so none of them exists for
 * a decision that rolled back. 404 when there is no such object. Answers the row as written and
 * the status it had before. The caller audits it: an operator's decision as `<type>.moderate`
 * (decide, below), an invalid-traffic ban as the review's action.
 */
export async function applyDecision<Row>(
  trx: Db,
  kind: ModeratedKind<Row>,
  id: number,
  wanted: WantedDecision,
  now: Date,
): Promise<{ row: Row; before: number }> {
  const before = await kind.lockStatus(trx, id);
  const row = before === undefined ? undefined : await kind.write(trx, id, wanted, now);
  if (before === undefined || row === undefined) throw notFound(kind.missing);
  const decided = kind.read(row);
  await emitWebhookEvent(trx, { ...kind.event(row), accountId: decided.ownerId, now });
  await announceDecision(trx, {
    ownerId: decided.ownerId,
    object: kind.noticeObject,
    objectId: decided.id,
    name: decided.name,
    outcome: kind.outcomeOf(decided.status),
    reason: decided.reason,
    now,
  });
  return { row, before };
}

/**
 * An operator's decision: any status may follow any other, and a rejection keeps its reason on the
 * object until an approval (docs/moderation.md). Audited as `<type>.moderate` with the status
 * before and the status and reason after, which is where the queues read the last rejection from.
 */
export async function decide<Row>(
  trx: Db,
  actor: Actor,
  kind: ModeratedKind<Row>,
  id: number,
  wanted: WantedDecision,
  now: Date,
): Promise<Row> {
  const { row, before } = await applyDecision(trx, kind, id, wanted, now);
  const after = kind.read(row);
  const change = {
    action: `${kind.auditType}.moderate`,
    objectType: kind.auditType,
    objectId: after.id,
    subjectAccountId: after.ownerId,
    before: { status: before },
    after: { status: after.status, reason: after.reason },
  };
  await recordAudit(trx, actor, change, now);
  return row;
}

/**
 * The owner sends a rejected (banned) object back to moderation after changing it; the reason stays
 * in sight until the next decision. 404 when it is not the owner's, 409 `not_rejected` when it is
 * not rejected. Audited as `<type>.resubmit`; nobody is notified, the operators' queue shows it.
 */
export async function resubmit<Row>(
  trx: Db,
  actor: Actor,
  kind: ModeratedKind<Row>,
  ownerId: number,
  id: number,
  now: Date,
): Promise<Row> {
  const { waiting, rejected } = kind.statuses;
  if ((await kind.ownStatus(trx, ownerId, id)) !== rejected) throw new DomainError('not_rejected', kind.notRejected);
  const row = await kind.write(trx, id, { status: waiting, reason: null }, now);
  if (row === undefined) throw notFound(kind.missing);
  const after = kind.read(row);
  const change = {
    action: `${kind.auditType}.resubmit`,
    objectType: kind.auditType,
    objectId: after.id,
    subjectAccountId: ownerId,
    before: { status: rejected },
    after: { status: after.status },
  };
  await recordAudit(trx, actor, change, now);
  return row;
}
