-- Where a publisher wants its money paid (docs/publisher.md#payout-details): a method and the
-- account of that method. One row per publisher, replaced when it changes; every change is in the
-- audit log (`payout_details.update`, before and after), which is the history.
CREATE TABLE payout_details (
  account_id integer PRIMARY KEY REFERENCES accounts (id),
  method     varchar(20) NOT NULL CHECK (method IN ('bank_transfer', 'paypal', 'wise', 'crypto', 'other')),
  holder     varchar(200) NOT NULL,
  account    varchar(500) NOT NULL,
  updated_at timestamptz NOT NULL
);
