-- OpenRTB bids that won (docs/adr/0044-openrtb-served-on-the-win-and-iab-categories.md). A bid is an
-- offer that may lose: nothing is counted when it is made. Its win notice (`nurl`) or billing
-- notice (`burl`) inserts its row here, and the same transaction adds it to the rollup as served,
-- so a bid counts served once however many notices arrive. Until its row has `won_at`, its click
-- link is not billed and its view pixel counts no view; a view pixel that comes before the notice
-- is remembered (`viewed_early_at`) and counted when the notice arrives.
-- The row is keyed by the bid's impression id (the teaser token's click id). The clearing price
-- (`${AUCTION_PRICE}`) is recorded, never charged: Nativa bills the click.
CREATE TABLE openrtb_wins (
  impression_id          text COLLATE "C" PRIMARY KEY,
  offer_id               integer NOT NULL,
  campaign_id            integer NOT NULL,
  block_id               integer NOT NULL,
  -- The bid's CPM and the exchange's clearing price, in micro-units of the platform currency per
  -- thousand impressions; the clearing price never exceeds the bid.
  bid_price_micros       bigint NOT NULL CHECK (bid_price_micros >= 0),
  clearing_price_micros  bigint CHECK (clearing_price_micros >= 0 AND clearing_price_micros <= bid_price_micros),
  bid_at                 timestamptz NOT NULL,
  won_at                 timestamptz,
  win_notice_at          timestamptz,
  billing_notice_at      timestamptz,
  viewed_early_at        timestamptz,
  CHECK (won_at IS NOT NULL OR viewed_early_at IS NOT NULL)
);
CREATE INDEX openrtb_wins_won_at ON openrtb_wins (won_at);
