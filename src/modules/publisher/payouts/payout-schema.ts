import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { PayoutsTable } from '../../../db/schema.ts';
import { Text } from '../../../http/input-types.ts';
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
  {
    ...payoutFields,
    userId: Type.Integer({ description: 'The publisher account paid.' }),
    username: Type.String({ description: 'That publisher’s login.' }),
  },
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

export const toAdminPayout = (row: PayoutRow, username: string): Static<typeof AdminPayoutSchema> => ({
  ...toPayout(row),
  userId: row.publisher_id,
  username,
});

/** How a publisher can be paid; the list is the `method` of the API. */
export const PAYOUT_METHODS = ['bank_transfer', 'paypal', 'wise', 'crypto', 'other'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

const detailFields = {
  method: Type.Union(
    PAYOUT_METHODS.map((method) => Type.Literal(method)),
    { description: 'How to pay: bank_transfer, paypal, wise, crypto or other.' },
  ),
  holder: Text('Whose account it is: the name the payment is addressed to.', { minLength: 1, maxLength: 200 }),
  account: Text('Where to pay, in the method’s terms: IBAN and BIC, PayPal or Wise e-mail, wallet address, instructions.', {
    minLength: 1,
    maxLength: 500,
  }),
};

export const PayoutDetailsBody = Type.Object(detailFields, { additionalProperties: false });

export const PayoutDetailsSchema = Type.Object(
  {
    method: detailFields.method,
    holder: Type.String({ description: detailFields.holder.description }),
    account: Type.String({ description: detailFields.account.description }),
    updated: Type.String({ format: 'date-time', description: 'When they were last changed.' }),
  },
  { description: 'Where the publisher wants its money paid.' },
);

export const PayoutSummarySchema = Type.Object(
  {
    balance: Type.Number({ description: 'The balance now, in currency units (pending payouts are already taken from it).' }),
    minimum: Type.Number({ description: 'The network’s minimum payout (MIN_PAYOUT), in currency units; 0: none.' }),
    payable: Type.Number({
      description:
        'What the next payout will pay: the whole balance once it reaches the minimum and payout details are given; 0 before.',
    }),
    pending: Type.Number({ description: 'Payouts recorded and not yet paid, in currency units.' }),
    details: Type.Union([PayoutDetailsSchema, Type.Null()], {
      description: 'Where to pay; null until the publisher gives them.',
    }),
  },
  { description: 'The publisher’s payout figures and details.' },
);
