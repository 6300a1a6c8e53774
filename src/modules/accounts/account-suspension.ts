import type { Db } from '../../db/database.ts';
import { DomainError, notFound, validationFailed } from '../../errors.ts';
import type { Language } from '../mail/index.ts';
import {
  type AccountChanges,
  type AccountRow,
  emailTakenByOther,
  findAccountForUpdate,
  revokeTokensOf,
  setSuspension,
  updateAccountFields,
} from './account-repository.ts';
import { endSessionsOf } from './sessions/session-service.ts';

/**
 * An operator's hold on an account (docs/operating.md, "Suspending an account"). A suspended
 * account cannot sign in; its sessions and API tokens are revoked with the suspension, in its
 * transaction; nothing of it serves (the serving snapshot leaves out a suspended advertiser's ads
 * and a suspended publisher's blocks). Its money, objects and statistics stay as they are.
 * Reinstating lifts the hold only: revoked sessions and tokens stay revoked, the account signs in
 * again and makes new tokens.
 */
export async function suspendAccount(
  trx: Db,
  id: number,
  reason: string,
  now: Date,
): Promise<{ account: AccountRow; sessionsEnded: number; tokenIds: number[] }> {
  const current = await findAccountForUpdate(trx, id);
  if (current === undefined) throw notFound('User');
  if (current.kind === 'operator') throw new DomainError('conflict', 'Operator accounts are not suspended.');
  if (current.suspended_at !== null) throw new DomainError('conflict', 'This account is already suspended.');
  const account = await setSuspension(trx, id, now, reason);
  const sessionsEnded = await endSessionsOf(trx, id, now);
  const tokenIds = await revokeTokensOf(trx, id, now);
  return { account, sessionsEnded, tokenIds };
}

export async function reinstateAccount(trx: Db, id: number): Promise<AccountRow> {
  const current = await findAccountForUpdate(trx, id);
  if (current === undefined) throw notFound('User');
  if (current.suspended_at === null) throw new DomainError('conflict', 'This account is not suspended.');
  return setSuspension(trx, id, null, '');
}

export interface AccountEdit {
  name?: string;
  email?: string;
  url?: string;
  whatsapp?: string;
  telegram?: string;
  skype?: string;
  phone?: string;
  dailyBudgetMicros?: number;
  language?: Language;
}

/**
 * An operator's change of an account's contact fields, daily budget or language. A new e-mail
 * must be nobody else's (422 on `email`) and is unconfirmed until the account confirms it.
 */
export async function editAccount(trx: Db, id: number, edit: AccountEdit): Promise<{ before: AccountRow; after: AccountRow }> {
  const before = await findAccountForUpdate(trx, id);
  if (before === undefined) throw notFound('User');
  const changes: AccountChanges = {
    name: edit.name,
    url: edit.url,
    whatsapp: edit.whatsapp,
    telegram: edit.telegram,
    skype: edit.skype,
    phone: edit.phone,
    daily_budget_micros: edit.dailyBudgetMicros,
    language: edit.language,
  };
  if (edit.email !== undefined && edit.email.toLowerCase() !== before.email.toLowerCase()) {
    if (await emailTakenByOther(trx, id, edit.email)) {
      throw validationFailed([{ field: 'email', message: 'This e-mail is already registered.' }]);
    }
    changes.email = edit.email;
    changes.email_confirmed_at = null;
  }
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as AccountChanges;
  if (Object.keys(defined).length === 0) return { before, after: before };
  return { before, after: await updateAccountFields(trx, id, defined) };
}
