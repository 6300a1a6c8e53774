-- The serving engine's own records: clicks (billing happens exactly once per click id),
-- conversions (once per click and goal) and retargeting audiences.

CREATE TABLE clicks (
  -- The random id carried by the signed click link; the primary key makes billing exactly once.
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
  -- billed: money moved; bot, limit, funds: redirected but not billed (why).
  status          text NOT NULL CHECK (status IN ('billed', 'bot', 'limit', 'funds')),
  charge_micros   bigint NOT NULL DEFAULT 0,
  publisher_micros bigint NOT NULL DEFAULT 0,
  margin_micros   bigint NOT NULL DEFAULT 0
);
CREATE INDEX clicks_offer_idx ON clicks (offer_id, created_at);

CREATE TABLE conversions (
  click_id    text NOT NULL REFERENCES clicks (click_id),
  -- 1 purchase, 2 registration, 3 intermediate.
  goal        smallint NOT NULL CHECK (goal IN (1, 2, 3)),
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (click_id, goal)
);

-- Visitors seen by an advertiser's retargeting pixel, identified by Nativa's random visitor cookie.
CREATE TABLE audience_members (
  advertiser_id integer NOT NULL REFERENCES accounts (id),
  visitor_id    text NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  PRIMARY KEY (advertiser_id, visitor_id)
);
CREATE INDEX audience_members_seen_idx ON audience_members (last_seen_at);
