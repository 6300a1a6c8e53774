import { type Static, Type } from '@sinclair/typebox';
import { microsToAmount } from '../../money.ts';
import { LanguageSchema } from '../mail/index.ts';
import type { AccountRow } from './account-repository.ts';

export const ACCOUNT_TYPES = ['advertiser', 'publisher', 'operator'] as const;

export const UserSchema = Type.Object(
  {
    id: Type.Integer({ description: 'User id.' }),
    username: Type.String({ description: 'Login.' }),
    email: Type.String({ description: 'E-mail.' }),
    type: Type.Union(
      ACCOUNT_TYPES.map((type) => Type.Literal(type)),
      { description: 'Account kind: advertiser, publisher (operator for Nativa staff).' },
    ),
    name: Type.String({ description: 'Personal name.' }),
    url: Type.String({ description: 'Company website (advertiser).' }),
    date: Type.String({ format: 'date-time', description: 'Registration date, ISO 8601.' }),
    maxmoney: Type.Number({ description: 'Daily budget across all campaigns (advertiser); 0 means none.' }),
    whatsapp: Type.String({ description: 'Messenger contact.' }),
    telegram: Type.String({ description: 'Messenger contact.' }),
    skype: Type.String({ description: 'Messenger contact.' }),
    phone: Type.String({ description: 'Phone.' }),
    balance: Type.Number({ description: 'Current account balance, in currency units (4 fraction digits).' }),
    parentId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Id of the User of whom this account is a referral; null when none.',
    }),
    emailConfirmed: Type.Boolean({ description: 'Whether the mailbox has been confirmed.' }),
    language: LanguageSchema,
  },
  { description: 'An account.' },
);

export type User = Static<typeof UserSchema>;

export function toUser(row: AccountRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    type: row.kind,
    name: row.name,
    url: row.url,
    date: row.created_at.toISOString(),
    maxmoney: microsToAmount(row.daily_budget_micros),
    whatsapp: row.whatsapp,
    telegram: row.telegram,
    skype: row.skype,
    phone: row.phone,
    balance: microsToAmount(row.balance_micros),
    parentId: row.parent_id,
    emailConfirmed: row.email_confirmed_at !== null,
    language: row.language,
  };
}
