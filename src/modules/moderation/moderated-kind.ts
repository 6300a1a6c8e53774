import type { TInteger, TSchema } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { WebhookEventType } from '../webhooks/index.ts';

/** What the owner's notice calls a moderated object. */
export type ModeratedObject = 'campaign' | 'ad' | 'site';

/** What the owner is told was decided (a site's ban is a rejection, its activation an approval). */
export type DecisionOutcome = 'approved' | 'rejected' | 'moderation' | 'unconfirmed';

/** The status an operator sets and, with a rejection, why. */
export interface WantedDecision {
  status: number;
  /** Trimmed, null when none was given; the owner's table keeps it by its own rule. */
  reason: string | null;
}

/** What moderation reads of an object's row after writing to it (ModeratedKind.read). */
export interface ModeratedRow {
  id: number;
  ownerId: number;
  /** The name its owner knows it by: a campaign's or ad's title, a site's address. */
  name: string;
  status: number;
  /** The reason in force (the last rejection's until an approval); null when there is none. */
  reason: string | null;
}

/**
 * How the one moderation flow (moderation-service.ts) reads and writes one kind of object.
 * The module that owns the kind's table provides it, so its SQL stays with its owner
 * (docs/tables.md), while deciding, telling the owner and auditing are written once.
 * `Row` is the owner's row as its write returns it, which the routes present.
 */
export interface ModeratedKind<Row> {
  /** The object type of its audit entries (`<type>.moderate`, `<type>.resubmit`) and last rejections. */
  auditType: 'campaign' | 'offer' | 'site';
  /** What the owner's notice calls it. */
  noticeObject: ModeratedObject;
  /** Its name in the 404 of a decision on an object that does not exist. */
  missing: string;
  /** The stored codes of waiting for moderation and of rejection (a site's ban). */
  statuses: { waiting: number; rejected: number };
  /** The 409's message when its owner resubmits one that is not rejected. */
  notRejected: string;
  /** The outcome the owner is told of, for a stored status. */
  outcomeOf(status: number): DecisionOutcome;
  /** Its status, the row locked until the transaction ends (the audit's "before"); undefined: none. */
  lockStatus(trx: Db, id: number): Promise<number | undefined>;
  /** Its status when it is the owner's; otherwise the 404 the owner's own routes answer. */
  ownStatus(trx: Db, ownerId: number, id: number): Promise<number>;
  /** Stores a decision; undefined when there is no such object. */
  write(trx: Db, id: number, decision: WantedDecision, now: Date): Promise<Row | undefined>;
  /** The row as moderation reads it: owner, name, status and reason. */
  read(row: Row): ModeratedRow;
  /** The webhook event a decision fires (`campaign.moderated`, …) with the kind's own payload. */
  event(row: Row): { type: WebhookEventType; data: Record<string, unknown> };
}

/**
 * Sites as their decision routes take and answer them, provided by the sites module (which app.ts
 * hands in): a site has four statuses of its own and is answered as the operator's list and the
 * publisher's own list show it.
 */
export interface ModeratedSites<Site> {
  kind: ModeratedKind<Site>;
  /** The status as the sites API codes it. */
  status: TInteger;
  operatorAnswer: TSchema;
  presentToOperator(db: Db, site: Site): Promise<unknown>;
  ownerAnswer: TSchema;
  presentToOwner(db: Db, site: Site): Promise<unknown>;
}
