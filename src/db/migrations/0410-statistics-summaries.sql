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

-- Days and months of what stats_daily already holds, one grouping per shape (the publisher's from
-- the block rows, months from the days: far quicker than one grouping of every shape at once);
-- hours start with this migration (stats_daily never had them).
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 1, campaign_id, 1, day, 0, 0, 0,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY campaign_id, day;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 2, campaign_id, 1, day, 0, offer_id, 0,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY campaign_id, day, offer_id;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 3, campaign_id, 1, day, 0, site_id, block_id,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY campaign_id, day, site_id, block_id;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 4, campaign_id, 1, day, 0, device::integer, 0,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY campaign_id, day, device;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 5, site_id, 1, day, 0, block_id, 0,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_daily GROUP BY site_id, day, block_id;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT 6, p.publisher_id, 1, r.day, 0, 0, 0,
  sum(r.views), sum(r.clicks), sum(r.spend_micros), sum(r.publisher_income_micros), sum(r.conversions_purchase),
  sum(r.conversions_registration), sum(r.conversions_intermediate), sum(r.served), sum(r.refunded_clicks),
  sum(r.refunded_spend_micros), sum(r.refunded_publisher_income_micros)
FROM stats_rollups r JOIN sites p ON p.id = r.key_a
WHERE r.shape = 5 AND r.span = 1
GROUP BY p.publisher_id, r.day;
INSERT INTO stats_rollups (shape, key_a, span, day, hour, key_b, key_c, views, clicks, spend_micros, publisher_income_micros, conversions_purchase, conversions_registration, conversions_intermediate, served, refunded_clicks, refunded_spend_micros, refunded_publisher_income_micros)
SELECT shape, key_a, 2, date_trunc('month', day)::date, 0, key_b, key_c,
  sum(views), sum(clicks), sum(spend_micros), sum(publisher_income_micros), sum(conversions_purchase),
  sum(conversions_registration), sum(conversions_intermediate), sum(served), sum(refunded_clicks),
  sum(refunded_spend_micros), sum(refunded_publisher_income_micros)
FROM stats_rollups WHERE span = 1
GROUP BY shape, key_a, date_trunc('month', day), key_b, key_c;
