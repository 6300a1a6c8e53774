import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { microsToAmount } from '../../money.ts';
import { accountBalances } from '../ledger/index.ts';
import type { MailText } from '../mail/index.ts';
import { notifyInTheirLanguage, notifyLowBalances } from '../notifications/index.ts';
import type { TEST_EVENT_TYPE, WebhookEventType } from './event-types.ts';
import { balanceWatchers, insertDeliveries, insertEvent } from './webhook-repository.ts';

export type { WebhookEventType };

/** What the body of every delivery looks like (docs/webhooks.md). */
export interface WebhookEventBody {
  id: string;
  type: string;
  created: string;
  userId: number | null;
  data: Record<string, unknown>;
}

/**
 * Records an event inside the caller's transaction, with one delivery per endpoint that wants it
 * (the account's own endpoints and operators' endpoints). Nothing is sent before the transaction
 * commits, and nothing is lost if the process dies after it: the delivery worker finds the rows.
 * Answers the event id, or undefined when no endpoint wanted the event (nothing is stored then).
 */
export async function emitWebhookEvent(
  trx: Db,
  event: {
    type: WebhookEventType | typeof TEST_EVENT_TYPE;
    accountId: number | null;
    data: Record<string, unknown>;
    now: Date;
    /** An id that makes the event happen once (a second emit with it does nothing); random otherwise. */
    id?: string;
  },
  endpointIds?: readonly number[],
): Promise<string | undefined> {
  const id = event.id ?? `evt_${randomUUID().replaceAll('-', '')}`;
  const body: WebhookEventBody = {
    id,
    type: event.type,
    created: event.now.toISOString(),
    userId: event.accountId,
    data: event.data,
  };
  const fresh = await insertEvent(trx, {
    id,
    type: event.type,
    accountId: event.accountId,
    payload: JSON.stringify(body),
    now: event.now,
  });
  if (!fresh) return undefined;
  const deliveries = await insertDeliveries(trx, {
    id,
    type: event.type,
    accountId: event.accountId,
    now: event.now,
    endpointIds,
  });
  if (deliveries === 0) {
    await trx.deleteFrom('webhook_events').where('id', '=', id).execute();
    return undefined;
  }
  return id;
}

/** A balance that moved: what it was before the movement and after it. */
export interface BalanceMovement {
  accountId: number;
  beforeMicros: number;
  afterMicros: number;
}

/**
 * Emits balance.below_threshold to each endpoint whose threshold a movement crossed downwards (from
 * at least the threshold to below it), inside the caller's transaction. A balance that stays below
 * the threshold does not fire again until it has risen to it.
 */
export async function emitBalanceCrossings(trx: Db, movements: readonly BalanceMovement[], now: Date): Promise<void> {
  const falling = movements.filter((movement) => movement.afterMicros < movement.beforeMicros);
  if (falling.length === 0) return;
  const watchers = await balanceWatchers(trx, [...new Set(falling.map((movement) => movement.accountId))]);
  for (const watcher of watchers) {
    const threshold = watcher.balance_threshold_micros;
    if (threshold === null) continue;
    const crossing = falling.find(
      (movement) =>
        movement.accountId === watcher.account_id && movement.beforeMicros >= threshold && movement.afterMicros < threshold,
    );
    if (crossing === undefined) continue;
    await emitWebhookEvent(
      trx,
      {
        type: 'balance.below_threshold',
        accountId: watcher.account_id,
        data: { balance: microsToAmount(crossing.afterMicros), threshold: microsToAmount(threshold) },
        now,
      },
      [watcher.id],
    );
  }
}

/**
 * Emits balance.below_threshold for accounts whose balances just fell by `drops` (micros, positive)
 * in the caller's transaction, after the movement: the balance before is the one now plus the drop.
 * The same crossing tells an advertiser its balance is low (an in-app notification, at its own
 * line): both in the transaction of the movement. Costs two queries when nothing crossed.
 */
export async function emitBalanceDrops(trx: Db, drops: ReadonlyMap<number, number>, now: Date): Promise<void> {
  const balances = await accountBalances(trx, [...drops.keys()]);
  const movements = balances.map((row) => ({
    accountId: row.id,
    afterMicros: row.balance_micros,
    beforeMicros: row.balance_micros + (drops.get(row.id) ?? 0),
  }));
  const advertisers = new Set(balances.filter((row) => row.kind === 'advertiser').map((row) => row.id));
  await notifyLowBalances(trx, movements, advertisers, now);
  await emitBalanceCrossings(trx, movements, now);
}

/**
 * Emits campaign.budget_exhausted once per campaign and day (in the platform's time zone): the
 * event id is made of both, so the many clicks refused for the limit on one day emit it once.
 * Each refusal carries its campaign's title, which the caller read (the advertiser is told by it).
 */
export async function emitBudgetExhausted(
  trx: Db,
  refusals: readonly { advertiserId: number; campaignId: number; title: string | undefined; at: Date }[],
  timeZone: string,
): Promise<void> {
  const seen = new Map<string, { advertiserId: number; campaignId: number; title: string | undefined; day: string; at: Date }>();
  for (const refusal of refusals) {
    const day = new Intl.DateTimeFormat('en-CA', { timeZone }).format(refusal.at);
    const id = `evt_budget_${refusal.campaignId}_${day.replaceAll('-', '')}`;
    if (seen.has(id)) continue;
    seen.set(id, { ...refusal, day });
    const data = { campaignId: refusal.campaignId, day };
    await emitWebhookEvent(trx, {
      id,
      type: 'campaign.budget_exhausted',
      accountId: refusal.advertiserId,
      data,
      now: refusal.at,
    });
  }
  // The advertiser is told once per campaign and day too (the key), by the campaign's title.
  await notifyInTheirLanguage(
    trx,
    [...seen.entries()].map(([key, stop]) => ({
      accountId: stop.advertiserId,
      kind: 'campaign.budget_exhausted' as const,
      text: (words: MailText) =>
        words('notice.budgetExhausted', {
          title: stop.title ?? words('notice.campaignUntitled', { id: stop.campaignId }),
          day: stop.day,
        }),
      data: { campaignId: stop.campaignId, day: stop.day },
      now: stop.at,
      onceKey: key,
    })),
  );
}

/** A settled click as the serving engine's settlement has it. */
export interface SettledClick {
  click_id: string;
  advertiser_id: number;
  campaign_id: number;
  charge_micros: number;
  refusal: 'bot' | 'limit' | null;
  created_at: Date | string;
}

/**
 * The events of a click settlement, in its transaction, after its money moved: advertisers' balances
 * that fell below a threshold, and campaigns refused clicks for their daily limit (`titles`: the
 * titles of those campaigns, which the settlement reads). The events are dated by the clicks, not
 * by a clock.
 */
export async function emitSettlementEvents(
  trx: Db,
  clicks: readonly SettledClick[],
  billed: ReadonlySet<string>,
  timeZone: string,
  titles: ReadonlyMap<number, string>,
): Promise<void> {
  const drops = new Map<number, number>();
  let latest = 0;
  for (const click of clicks) {
    if (!billed.has(click.click_id)) continue;
    drops.set(click.advertiser_id, (drops.get(click.advertiser_id) ?? 0) + click.charge_micros);
    latest = Math.max(latest, new Date(click.created_at).getTime());
  }
  if (drops.size > 0) await emitBalanceDrops(trx, drops, new Date(latest));
  const refusals = clicks
    .filter((click) => click.refusal === 'limit')
    .map((click) => ({
      advertiserId: click.advertiser_id,
      campaignId: click.campaign_id,
      title: titles.get(click.campaign_id),
      at: new Date(click.created_at),
    }));
  if (refusals.length > 0) await emitBudgetExhausted(trx, refusals, timeZone);
}
