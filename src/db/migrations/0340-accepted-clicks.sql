-- Clicks are accepted and settled in two steps (docs/adr/0007). A click link's request writes only
-- an accepted_clicks row, committed before its redirect: that row is the durable record of the
-- click. A settlement then moves accepted rows into clicks, each with its outcome, and in the same
-- transaction posts the money and the rollup lines of the billed ones, deleting the accepted rows
-- it took. A click is therefore in exactly one of the two tables, and one settlement alone can take
-- an accepted row (the DELETE that takes it is the claim).
CREATE TABLE accepted_clicks (
  click_id        text PRIMARY KEY,
  created_at      timestamptz NOT NULL,
  campaign_id     integer NOT NULL,
  offer_id        integer NOT NULL,
  site_id         integer NOT NULL,
  block_id        integer NOT NULL,
  device          smallint NOT NULL,
  country         text NOT NULL DEFAULT '',
  advertiser_id   integer NOT NULL,
  publisher_id    integer NOT NULL,
  -- What the click costs if it is billed (the auction's price, carried by the signed link).
  charge_micros   bigint NOT NULL,
  -- Decided when the click came in: null = bill it; bot or limit = record it unbilled, with why.
  refusal         text CHECK (refusal IN ('bot', 'limit'))
);
