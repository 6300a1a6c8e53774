-- Click billing writes, per click, a click row, three ledger rows and a rollup upsert, and moves
-- three balances. Each index, foreign key check and non-HOT update on that path is paid thousands of
-- times a second, so the path carries only what something reads or protects.

-- A ledger row's counterparty and author are informational (accounts are never deleted) and are
-- set by the code that writes the row; their foreign keys cost two index lookups per ledger row.
-- The account a row belongs to keeps its foreign key.
ALTER TABLE ledger_entries
  DROP CONSTRAINT ledger_entries_counterparty_id_fkey,
  DROP CONSTRAINT ledger_entries_created_by_fkey;

-- Nothing reads clicks by ad: per-ad counts come from the rollup, and clicks are looked up by id.
DROP INDEX clicks_offer_idx;

-- Rollup rows and balances are updated in place all day. Free room on each page lets PostgreSQL
-- keep the new row version on the same page (a HOT update), without new entries in every index.
ALTER TABLE stats_daily SET (fillfactor = 70);
ALTER TABLE accounts SET (fillfactor = 70);
