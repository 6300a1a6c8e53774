import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { DomainError, notFound } from '../../errors.ts';
import type { Actor } from '../../shared/actor.ts';
import { recordAudit } from '../audit/index.ts';
import type { MailText } from '../mail/index.ts';
import { applyDecision } from '../moderation/index.ts';
import { notifyInTheirLanguage } from '../notifications/index.ts';
import { siteModeration } from '../publisher/index.ts';
import { refundClicks } from '../refunds/index.ts';
import type { Period } from '../statistics/index.ts';
import { emitWebhookEvent } from '../webhooks/index.ts';
import {
  type Dimension,
  findSiteReview,
  insertSiteReview,
  invalidClicksByReason,
  invalidShares,
  listSiteReviews,
  type Owner,
  type ReasonRow,
  recordReviewAction,
  type ShareRow,
  type SiteReviewRow,
  sitesOverThreshold,
  type TimeRange,
} from './invalid-traffic-repository.ts';
import { INVALID_REASONS, type InvalidReason, type RefundReason } from './reasons.ts';
import type { ReviewRule } from './sivt-rules.ts';

const LAST_DAY = '9999-12-31';

/** The instants a period of platform-time-zone days covers: from its first day's start to the end of its last. */
export async function rangeOfPeriod(db: Db, period: Period, timeZone: string): Promise<TimeRange> {
  // The day after the last one a date can name has no start an instant can hold: no bound then.
  const to = period.to === LAST_DAY ? undefined : period.to;
  if (period.from === undefined && to === undefined) return {};
  const result = await sql<{ from: Date | null; to: Date | null }>`
    SELECT (${period.from ?? null}::date)::timestamp AT TIME ZONE ${timeZone} AS from,
      (${to ?? null}::date + 1)::timestamp AT TIME ZONE ${timeZone} AS to`.execute(db);
  const row = result.rows[0];
  return { from: row?.from ?? undefined, to: row?.to ?? undefined };
}

/** Invalid clicks of an owner over a period, by outcome and reason. */
export async function invalidTrafficOf(db: Db, owner: Owner, period: Period, timeZone: string): Promise<ReasonRow[]> {
  return invalidClicksByReason(db, owner, await rangeOfPeriod(db, period, timeZone));
}

/** The operators' figures: every click of the period, the invalid ones among them, per one dimension. */
export async function invalidTrafficShares(
  db: Db,
  period: Period,
  by: Dimension,
  options: { timeZone: string; limit: number },
): Promise<ShareRow[]> {
  return invalidShares(db, await rangeOfPeriod(db, period, options.timeZone), by, options);
}

/** Evidence of a review: its clicks per reason as they were when it was flagged. */
export type Evidence = { outcome: ReasonRow['outcome']; reason: InvalidReason; clicks: number }[];

export const evidenceOf = (review: Pick<SiteReviewRow, 'evidence'>): Evidence => JSON.parse(review.evidence) as Evidence;

/**
 * Flags every site whose invalid share over the last window reached the rule: a review with the
 * evidence, and `traffic.site_flagged` to the site's publisher in the same transaction (without the
 * rule's figures). Answers the reviews made, with their leading reason (for the metrics).
 */
export async function flagSites(
  db: Db,
  rule: ReviewRule,
  now: Date,
): Promise<{ reviewId: number; siteId: number; leadingReason: string }[]> {
  // The window ends just after `now`: a click of this very millisecond counts.
  const range = { from: new Date(now.getTime() - rule.windowMs), to: new Date(now.getTime() + 1) };
  const sites = await sitesOverThreshold(db, range, rule);
  const flagged = [];
  for (const site of sites) {
    const evidence: Evidence = (await invalidClicksByReason(db, { siteId: site.site_id }, range)).map((row) => ({
      outcome: row.outcome,
      reason: row.reason,
      clicks: row.clicks,
    }));
    const leading = [...evidence].sort((a, b) => b.clicks - a.clicks)[0]?.reason ?? 'bot';
    const reviewId = await inTransaction(db, async (trx) => {
      const id = await insertSiteReview(trx, {
        siteId: site.site_id,
        publisherId: site.publisher_id,
        flaggedAt: now,
        range,
        clicks: site.clicks,
        invalid: site.invalid,
        evidence: JSON.stringify(evidence),
      });
      if (id === undefined) return undefined;
      await emitWebhookEvent(trx, {
        type: 'traffic.site_flagged',
        accountId: site.publisher_id,
        data: {
          siteId: site.site_id,
          reviewId: id,
          periodFrom: range.from.toISOString(),
          periodTo: range.to.toISOString(),
          clicks: site.clicks,
          invalidClicks: site.invalid,
          reasons: evidence,
        },
        now,
        id: `evt_site_flagged_${id}`,
      });
      return id;
    });
    if (reviewId !== undefined) flagged.push({ reviewId, siteId: site.site_id, leadingReason: leading });
  }
  return flagged;
}

export async function siteReviewPage(db: Db, status: 'open' | 'closed' | undefined, limit: number, offset: number) {
  return listSiteReviews(db, { status }, limit, offset);
}

export async function getSiteReview(db: Db, id: number): Promise<SiteReviewRow> {
  const review = await findSiteReview(db, id);
  if (review === undefined) throw notFound('Review');
  return review;
}

/** What an operator may do with a review. */
export const REVIEW_ACTIONS = ['refund', 'ban', 'warn', 'dismiss'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

export interface ReviewDecision {
  action: ReviewAction;
  /** refund: why the clicks are invalid (a refund reason). */
  reason?: RefundReason;
  comment?: string;
}

/**
 * An operator's action on a review, in the caller's transaction and audited there: `refund` refunds
 * the site's billed clicks of the review's period through the refund service; `ban` bans the site
 * through moderation (its blocks stop serving); `warn` tells the publisher, in its language;
 * `dismiss` closes the review. `ban` and `dismiss` close it; a closed review takes no more actions.
 */
export async function actOnReview(
  trx: Db,
  id: number,
  decision: ReviewDecision,
  context: { actor: Actor; operatorId: number; now: Date; timeZone: string },
): Promise<{ review: SiteReviewRow; refundId: number | null }> {
  const review = await findSiteReview(trx, id, true);
  if (review === undefined) throw notFound('Review');
  if (review.status !== 'open') throw new DomainError('conflict', 'This review is closed already.');
  const { now } = context;
  let refundId: number | null = null;
  const after: Record<string, unknown> = { action: decision.action, siteId: review.site_id };
  if (decision.action === 'refund') {
    const refund = await refundClicks(
      trx,
      {
        selection: { siteId: review.site_id, from: review.period_from, to: review.period_to },
        reason: decision.reason ?? 'publisher_fraud',
        comment: decision.comment ?? `site review ${review.id}`,
        operatorId: context.operatorId,
        dryRun: false,
      },
      { timeZone: context.timeZone, now },
    );
    refundId = refund.id;
    Object.assign(after, { refundId, clicks: refund.clickCount, refundedMicros: refund.plan.refundedMicros });
  } else if (decision.action === 'ban') {
    const reason = decision.comment ?? 'Invalid traffic';
    await applyDecision(trx, siteModeration, review.site_id, { status: siteModeration.statuses.rejected, reason }, now);
  } else if (decision.action === 'warn') {
    await warnPublisher(trx, review, now);
  }
  const close =
    decision.action === 'ban' || decision.action === 'dismiss'
      ? { status: decision.action === 'ban' ? ('banned' as const) : ('dismissed' as const), by: context.operatorId, at: now }
      : undefined;
  await recordReviewAction(trx, review.id, decision.action, close);
  await recordAudit(
    trx,
    context.actor,
    {
      action: `site_review.${decision.action}`,
      objectType: 'site_review',
      objectId: review.id,
      subjectAccountId: review.publisher_id,
      after: { ...after, comment: decision.comment ?? null },
    },
    now,
  );
  return { review: await getSiteReview(trx, review.id), refundId };
}

/** A reason as the publisher reads it ("data-centre networks"); a reason the catalogue lacks, as stored. */
function reasonInWords(words: MailText, reason: string): string {
  return (INVALID_REASONS as readonly string[]).includes(reason) ? words(`invalidReason.${reason as InvalidReason}`) : reason;
}

/** The publisher's notification of a warning: the site, the period and the reasons, never the rule's figures. */
async function warnPublisher(trx: Db, review: SiteReviewRow, now: Date): Promise<void> {
  const evidence = evidenceOf(review);
  const reasons = [...evidence]
    .sort((a, b) => b.clicks - a.clicks)
    .slice(0, 3)
    .map((row) => row.reason);
  const day = (date: Date) => date.toISOString().slice(0, 10);
  await notifyInTheirLanguage(trx, [
    {
      accountId: review.publisher_id,
      kind: 'traffic.warning',
      text: (words) =>
        words('notice.trafficWarning', {
          url: review.site_url,
          from: day(review.period_from),
          to: day(review.period_to),
          invalid: String(review.invalid_clicks),
          clicks: String(review.clicks),
          reasons: [...new Set(reasons)].map((reason) => reasonInWords(words, reason)).join(', '),
        }),
      data: { siteId: review.site_id, reviewId: review.id, reasons: evidence },
      now,
    },
  ]);
}
