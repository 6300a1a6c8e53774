-- Statistics summaries bounded by the answer wherever a period's edges fall (docs/adr/0020).
--
-- stats_rollups (migration 0410) gains spans and one shape:
--   span 3 a dekad (days 1–10, 11–20, 21 to the month's end; `day` is its first day),
--   span 4 a calendar year (`day` is 1 January), span 5 the whole history (`day` is 0001-01-01);
--   shape 7 campaign site     key_a campaign_id, key_b site_id (the site statistics of a campaign
--   without summing its blocks).
-- A period is read as a signed sum of these (a partial year, month or dekad is its children
-- inside the period, or itself minus its children outside it, whichever is fewer rows), so a
-- rolling year is a handful of rows per answer row, whatever the history behind it.
--
-- Filled from what is already there: the new shape's days from stats_daily, then each coarser
-- span from the one below it (one grouping per span, a plain aggregate).
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 7, campaign_id, 1, day, 0, site_id, 0,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY campaign_id, day, site_id;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT shape, key_a, 2, date_trunc('month', day)::date, 0, key_b, key_c,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_rollups WHERE span = 1 AND shape = 7
GROUP BY shape, key_a, date_trunc('month', day), key_b, key_c;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT shape, key_a, 3,
  date_trunc('month', day)::date + CASE WHEN extract(day FROM day) <= 10 THEN 0 WHEN extract(day FROM day) <= 20 THEN 10 ELSE 20 END,
  0, key_b, key_c,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_rollups WHERE span = 1
GROUP BY shape, key_a,
  date_trunc('month', day)::date + CASE WHEN extract(day FROM day) <= 10 THEN 0 WHEN extract(day FROM day) <= 20 THEN 10 ELSE 20 END,
  key_b, key_c;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT shape, key_a, 4, date_trunc('year', day)::date, 0, key_b, key_c,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_rollups WHERE span = 2
GROUP BY shape, key_a, date_trunc('year', day), key_b, key_c;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT shape, key_a, 5, DATE '0001-01-01', 0, key_b, key_c,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_rollups WHERE span = 4
GROUP BY shape, key_a, key_b, key_c;
