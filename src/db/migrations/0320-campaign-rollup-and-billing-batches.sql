-- Two changes that take writes off the click billing path (docs/adr/0006).

-- 1. Campaign totals per day get their own rollup table, written in the same statement as
-- stats_daily by every writer of statistics (the statistics module's rollupWrites). Campaign lists
-- and campaign statistics sum a few hundred of these rows instead of thousands of stats_daily rows,
-- which stats_daily_campaign_totals_idx existed for. That index carried the summed columns, so
-- every rollup upsert had to write a new entry in it and in the four other indexes (no HOT
-- update); without it an upsert of an existing rollup row changes no indexed column and stays on
-- its page (fillfactor 70).
CREATE TABLE stats_campaign_daily (
  campaign_id     integer NOT NULL,
  day             date NOT NULL,
  views           bigint NOT NULL DEFAULT 0,
  clicks          bigint NOT NULL DEFAULT 0,
  spend_micros    bigint NOT NULL DEFAULT 0,
  publisher_income_micros bigint NOT NULL DEFAULT 0,
  conversions_purchase     bigint NOT NULL DEFAULT 0,
  conversions_registration bigint NOT NULL DEFAULT 0,
  conversions_intermediate bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (campaign_id, day)
) WITH (fillfactor = 70);

INSERT INTO stats_campaign_daily (campaign_id, day, views, clicks, spend_micros, publisher_income_micros,
  conversions_purchase, conversions_registration, conversions_intermediate)
SELECT campaign_id, day, sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros),
  sum(conversions_purchase), sum(conversions_registration), sum(conversions_intermediate)
FROM stats_daily
GROUP BY campaign_id, day;

DROP INDEX stats_daily_campaign_totals_idx;

-- 2. Clicks billed together share one set of ledger rows: per billing batch, one debit per
-- advertiser and publisher, one credit per publisher and one margin row, each with the batch id as
-- its reference. The batch id on each click row ties every click to those rows (and its own
-- charge, share and margin are on the click row). Unbilled clicks have none.
ALTER TABLE clicks ADD COLUMN billing_batch text;
