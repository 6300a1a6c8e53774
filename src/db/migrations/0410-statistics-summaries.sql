-- Pre-aggregated statistics (docs/adr/0010): every statistics endpoint reads rows whose number is
-- bounded by its answer, not by the history behind it.
--
-- One table holds every summary, so that a write of traffic adds to all of them in one upsert
-- statement (each extra statement costs the click path). A row is a sum of stats_daily over a
-- `shape` of keys and a `span` of time:
--   shape 1 campaign          key_a campaign_id
--   shape 2 ad                key_a campaign_id, key_b offer_id
--   shape 3 campaign place    key_a campaign_id, key_b site_id, key_c block_id
--   shape 4 campaign device   key_a campaign_id, key_b device
--   shape 5 block             key_a site_id,     key_b block_id
--   shape 6 publisher         key_a publisher_id (of the site when the traffic was written)
--   span 0 an hour (`day` and `hour`, platform time zone; shapes 1, 2, 5, 6 only),
--   span 1 a day, span 2 a calendar month (`day` is its first day); unused keys and hours are 0.
-- A period is read as its whole months (span 2) plus at most two partial months of days (span 1),
-- so a year of one campaign is 12 rows per answer row, whatever happened inside it.
CREATE TABLE stats_rollups (
  shape  smallint NOT NULL,
  key_a  integer NOT NULL,
  span   smallint NOT NULL,
  day    date NOT NULL,
  hour   smallint NOT NULL DEFAULT 0,
  key_b  integer NOT NULL DEFAULT 0,
  key_c  integer NOT NULL DEFAULT 0,
  views           bigint NOT NULL DEFAULT 0,
  clicks          bigint NOT NULL DEFAULT 0,
  spend_micros    bigint NOT NULL DEFAULT 0,
  publisher_income_micros bigint NOT NULL DEFAULT 0,
  conversions_purchase     bigint NOT NULL DEFAULT 0,
  conversions_registration bigint NOT NULL DEFAULT 0,
  conversions_intermediate bigint NOT NULL DEFAULT 0,
  served bigint NOT NULL DEFAULT 0,
  refunded_clicks bigint NOT NULL DEFAULT 0,
  refunded_spend_micros bigint NOT NULL DEFAULT 0,
  refunded_publisher_income_micros bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (shape, key_a, span, day, hour, key_b, key_c)
) WITH (fillfactor = 70);

-- Days and months of what stats_daily already holds; hours start with this migration (stats_daily
-- never had them).
INSERT INTO stats_rollups (shape, key_a, span, day, key_b, key_c, views, clicks, spend_micros,
  publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate,
  served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT k.shape, k.key_a, g.span, g.day, k.key_b, k.key_c,
  sum(d.views), sum(d.clicks), sum(d.spend_micros), sum(d.publisher_income_micros),
  sum(d.conversions_purchase), sum(d.conversions_registration), sum(d.conversions_intermediate),
  sum(d.served), sum(d.refunded_clicks), sum(d.refunded_spend_micros), sum(d.refunded_publisher_income_micros)
FROM stats_daily d
LEFT JOIN sites p ON p.id = d.site_id
CROSS JOIN LATERAL (VALUES (1::smallint, d.day), (2::smallint, date_trunc('month', d.day)::date)) AS g(span, day)
CROSS JOIN LATERAL (VALUES
  (1::smallint, d.campaign_id, 0, 0),
  (2::smallint, d.campaign_id, d.offer_id, 0),
  (3::smallint, d.campaign_id, d.site_id, d.block_id),
  (4::smallint, d.campaign_id, d.device::integer, 0),
  (5::smallint, d.site_id, d.block_id, 0),
  (6::smallint, p.publisher_id, 0, 0)) AS k(shape, key_a, key_b, key_c)
WHERE k.key_a IS NOT NULL
GROUP BY k.shape, k.key_a, g.span, g.day, k.key_b, k.key_c;
