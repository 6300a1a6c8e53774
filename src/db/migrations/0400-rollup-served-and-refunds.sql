-- Counters that issues 16 (refunds of invalid clicks) and 17 (viewable impressions) add to both
-- rollups, in one migration so that every later rollup table is made with the same columns.
--
-- served: teasers served. `views` becomes viewable impressions (reported by the loader's beacon);
-- until now a view was counted when the teaser was served, so the rows written before this
-- migration hold served teasers in `views`, and `served` starts as a copy of them.
-- refunded_*: clicks found invalid after they were billed, and the money given back for them,
-- counted on the day and in the place of the click itself, so per-site figures stay comparable;
-- `clicks`, `spend_micros` and `publisher_income_micros` keep what was billed at the time.
ALTER TABLE stats_daily
  ADD COLUMN served bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_clicks bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_spend_micros bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_publisher_income_micros bigint NOT NULL DEFAULT 0;
UPDATE stats_daily SET served = views WHERE views <> 0;

ALTER TABLE stats_campaign_daily
  ADD COLUMN served bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_clicks bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_spend_micros bigint NOT NULL DEFAULT 0,
  ADD COLUMN refunded_publisher_income_micros bigint NOT NULL DEFAULT 0;
UPDATE stats_campaign_daily SET served = views WHERE views <> 0;
