-- Conversions an advertiser's server reports with its postback key are authenticated; the browser
-- pixel's are not (docs/serving.md, Conversions). Each conversion says which it was, the rollups
-- count the pixel's per goal beside all of them, and a rule may count only authenticated ones.

-- One postback key per advertiser: its SHA-256 only (the key is shown once), and the first
-- characters, by which the advertiser recognises it. Rotating replaces the row.
CREATE TABLE postback_keys (
  advertiser_id integer PRIMARY KEY REFERENCES accounts (id),
  key_hash      bytea NOT NULL UNIQUE,
  key_prefix    text NOT NULL,
  created_at    timestamptz NOT NULL
);

-- Conversions recorded before keys existed were not authenticated: they count as the pixel's.
ALTER TABLE conversions ADD COLUMN source text NOT NULL DEFAULT 'pixel' CHECK (source IN ('pixel', 'postback'));
ALTER TABLE conversions ALTER COLUMN source DROP DEFAULT;

ALTER TABLE stats_daily
  ADD COLUMN pixel_conversions_purchase bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_registration bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_intermediate bigint NOT NULL DEFAULT 0;
ALTER TABLE stats_campaign_daily
  ADD COLUMN pixel_conversions_purchase bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_registration bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_intermediate bigint NOT NULL DEFAULT 0;
ALTER TABLE stats_rollups
  ADD COLUMN pixel_conversions_purchase bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_registration bigint NOT NULL DEFAULT 0,
  ADD COLUMN pixel_conversions_intermediate bigint NOT NULL DEFAULT 0;

UPDATE stats_daily SET pixel_conversions_purchase = conversions_purchase,
  pixel_conversions_registration = conversions_registration,
  pixel_conversions_intermediate = conversions_intermediate
WHERE conversions_purchase + conversions_registration + conversions_intermediate > 0;
UPDATE stats_campaign_daily SET pixel_conversions_purchase = conversions_purchase,
  pixel_conversions_registration = conversions_registration,
  pixel_conversions_intermediate = conversions_intermediate
WHERE conversions_purchase + conversions_registration + conversions_intermediate > 0;
UPDATE stats_rollups SET pixel_conversions_purchase = conversions_purchase,
  pixel_conversions_registration = conversions_registration,
  pixel_conversions_intermediate = conversions_intermediate
WHERE conversions_purchase + conversions_registration + conversions_intermediate > 0;

-- A rule on CPA or conversions may count only the authenticated ones (postbacks).
ALTER TABLE campaign_rules ADD COLUMN authenticated_only boolean NOT NULL DEFAULT false;
