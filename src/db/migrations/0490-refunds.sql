-- Refunds of invalid clicks (issue 16, docs/refunds.md, docs/adr/0017).

-- The visitor's address of a click, so that an operator can find the clicks of an address range
-- (a data centre, a bot net) on a site or block. Null for clicks recorded before this migration.
ALTER TABLE accepted_clicks ADD COLUMN address inet;
ALTER TABLE clicks ADD COLUMN address inet;

-- Refunds select clicks by time range (with a site or block), and the click flood detector reads
-- the last minutes of clicks. Clicks are inserted in about the order of their time, so a BRIN
-- index finds a time range by reading only its pages, and costs the billing path next to nothing
-- (it is updated per block range of the table, not per row as a B-tree is).
CREATE INDEX clicks_created_brin ON clicks USING brin (created_at);

-- One refund: a selection of billed clicks found invalid, with why, and what moved.
CREATE TABLE refunds (
  id              serial PRIMARY KEY,
  reason          text NOT NULL
    CHECK (reason IN ('bot', 'duplicate', 'datacenter', 'click_flood', 'publisher_fraud', 'manual')),
  comment         text NOT NULL DEFAULT '',
  -- The operator who applied it; null when the automatic detector did.
  created_by      integer REFERENCES accounts (id),
  created_at      timestamptz NOT NULL,
  clicks          integer NOT NULL,
  -- Given back to advertisers (the sum of the clicks' charges).
  refunded_micros bigint NOT NULL,
  -- Taken back from publishers' balances.
  publisher_reversed_micros bigint NOT NULL,
  -- Publishers' shares that their balances could not cover (already paid out): the platform bears them.
  publisher_unrecovered_micros bigint NOT NULL,
  -- The platform's margin on these clicks, given back.
  margin_reversed_micros bigint NOT NULL
);

-- Each refunded click, once: the primary key makes a second refund of a click impossible.
CREATE TABLE refunded_clicks (
  click_id        text PRIMARY KEY REFERENCES clicks (click_id),
  refund_id       integer NOT NULL REFERENCES refunds (id),
  advertiser_id   integer NOT NULL,
  publisher_id    integer NOT NULL,
  charge_micros   bigint NOT NULL,
  publisher_reversed_micros bigint NOT NULL,
  publisher_unrecovered_micros bigint NOT NULL,
  margin_micros   bigint NOT NULL
);
CREATE INDEX refunded_clicks_advertiser_idx ON refunded_clicks (advertiser_id, refund_id);
CREATE INDEX refunded_clicks_publisher_idx ON refunded_clicks (publisher_id, refund_id);
CREATE INDEX refunded_clicks_refund_idx ON refunded_clicks (refund_id);
