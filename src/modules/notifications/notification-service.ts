import type { Db } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { microsToAmount } from '../../money.ts';
import { accountContacts } from '../accounts/index.ts';
import { type MailText, mailText } from '../mail/index.ts';
import {
  countUnread,
  insertNotifications,
  listNotifications,
  lowBalanceSettings,
  markRead,
  type NewNotification,
  notificationExists,
  saveLowBalance,
} from './notification-repository.ts';

/**
 * The line below which an advertiser's balance is "low" when the account has not chosen its own:
 * 10.00 currency units (docs/notifications.md).
 */
export const DEFAULT_LOW_BALANCE_MICROS = 10_000_000;

/** What a notification is about; the list is the `kind` of the API (docs/notifications.md). */
export const NOTIFICATION_KINDS = [
  'moderation.decided',
  'balance.low',
  'campaign.budget_exhausted',
  'webhook.disabled',
  'traffic.warning',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type { NewNotification };

/** Writes notifications in the caller's transaction: they exist exactly when their cause commits. */
export async function notify(trx: Db, notifications: readonly (NewNotification & { kind: NotificationKind })[]): Promise<void> {
  await insertNotifications(trx, notifications);
}

/** A notification whose text is written for its reader: `text` gets the words of the account's language. */
export type NoticeInWords = Omit<NewNotification, 'text'> & { kind: NotificationKind; text: (words: MailText) => string };

/**
 * Writes notifications as `notify` does, each text in its account's language as this transaction
 * reads it (docs/web-account.md, "Languages"): one read of the accounts' languages.
 */
export async function notifyInTheirLanguage(trx: Db, notices: readonly NoticeInWords[]): Promise<void> {
  if (notices.length === 0) return;
  const languages = new Map(
    (
      await accountContacts(
        trx,
        notices.map((notice) => notice.accountId),
      )
    ).map((account) => [account.id, account.language]),
  );
  await insertNotifications(
    trx,
    notices.map((notice) => ({ ...notice, text: notice.text(mailText(languages.get(notice.accountId) ?? 'en')) })),
  );
}

/** A balance that moved in the caller's transaction: before and after (micros). */
export interface MovedBalance {
  accountId: number;
  beforeMicros: number;
  afterMicros: number;
}

/**
 * Tells each advertiser whose balance just fell below its low-balance line (from at or above it to
 * below it); a balance that stays low is not told again until it has risen back over the line.
 * One query when nothing crossed a default line.
 */
export async function notifyLowBalances(trx: Db, moved: readonly MovedBalance[], advertiserIds: ReadonlySet<number>, now: Date) {
  const falling = moved.filter((move) => advertiserIds.has(move.accountId) && move.afterMicros < move.beforeMicros);
  if (falling.length === 0) return;
  const own = await lowBalanceSettings(
    trx,
    falling.map((move) => move.accountId),
  );
  const notices: NoticeInWords[] = [];
  for (const move of falling) {
    const line = own.get(move.accountId) ?? DEFAULT_LOW_BALANCE_MICROS;
    if (line === 0 || move.beforeMicros < line || move.afterMicros >= line) continue;
    const balance = microsToAmount(move.afterMicros);
    const threshold = microsToAmount(line);
    const shown = (micros: number) =>
      micros % 10_000 === 0 ? microsToAmount(micros).toFixed(2) : String(microsToAmount(micros));
    notices.push({
      accountId: move.accountId,
      kind: 'balance.low',
      text: (words) => words('notice.balanceLow', { balance: shown(move.afterMicros), threshold: shown(line) }),
      data: { balance, threshold },
      now,
    });
  }
  await notifyInTheirLanguage(trx, notices);
}

export async function notificationPage(db: Db, accountId: number, unreadOnly: boolean, limit: number, offset: number) {
  return listNotifications(db, accountId, unreadOnly, limit, offset);
}

export const unreadCount = countUnread;

/** Marks one of the account's notifications read; 404 when it has no such notification. */
export async function readNotification(db: Db, accountId: number, id: number, now: Date): Promise<void> {
  if (!(await notificationExists(db, accountId, id))) throw notFound('Notification');
  await markRead(db, accountId, id, now);
}

export async function readAllNotifications(db: Db, accountId: number, now: Date): Promise<number> {
  return markRead(db, accountId, undefined, now);
}

/** The account's low-balance line in micros (its own, or the default). */
export async function lowBalanceLine(db: Db, accountId: number): Promise<number> {
  return (await lowBalanceSettings(db, [accountId])).get(accountId) ?? DEFAULT_LOW_BALANCE_MICROS;
}

export async function setLowBalanceLine(trx: Db, accountId: number, micros: number, now: Date): Promise<void> {
  await saveLowBalance(trx, accountId, micros, now);
}
