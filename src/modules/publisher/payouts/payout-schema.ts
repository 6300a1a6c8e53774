import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { PayoutsTable } from '../../../db/schema.ts';
import { microsToAmount } from '../../../money.ts';

export type PayoutRow = Selectable<PayoutsTable>;

export const PAYOUT_STATUSES = ['pending', 'paid', 'cancelled'] as const;

const payoutFields = {
  id: Type.Integer({ description: 'Payout id.' }),
  date: Type.String({ format: 'date-time', description: 'Payout date (when it was recorded), ISO 8601.' }),
  wallet: Type.String({ description: 'Payment method and destination.' }),
  amount: Type.Number({ description: 'Amount paid out, in currency units (4 fraction digits).' }),
  status: Type.Union(
    PAYOUT_STATUSES.map((status) => Type.Literal(status)),
    { description: 'pending (recorded, money reserved), paid (final) or cancelled (final, money returned to the balance).' },
  ),
};

export const PayoutSchema = Type.Object(payoutFields, { description: 'A payout to the publisher.' });

export const AdminPayoutSchema = Type.Object(
  { ...payoutFields, userId: Type.Integer({ description: 'The publisher account paid.' }) },
  { description: 'A payout as the operator sees it.' },
);

export type Payout = Static<typeof PayoutSchema>;

export function toPayout(row: PayoutRow): Payout {
  return {
    id: row.id,
    date: row.created_at.toISOString(),
    wallet: row.wallet,
    amount: microsToAmount(row.amount_micros),
    status: row.status,
  };
}

export const toAdminPayout = (row: PayoutRow): Static<typeof AdminPayoutSchema> => ({
  ...toPayout(row),
  userId: row.publisher_id,
});
