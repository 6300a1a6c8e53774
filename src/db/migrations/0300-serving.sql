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

-- A counter that moves whenever something the serving index is built from changes, so each
-- instance rebuilds its index only when needed (and otherwise refreshes just balances and spend).
CREATE TABLE serving_changes (
  id       smallint PRIMARY KEY CHECK (id = 1),
  version  bigint NOT NULL
);
INSERT INTO serving_changes (id, version) VALUES (1, 0);

CREATE FUNCTION serving_changed() RETURNS trigger AS $$
BEGIN
  UPDATE serving_changes SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER campaigns_serving_changed AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
CREATE TRIGGER offers_serving_changed AFTER INSERT OR UPDATE OR DELETE ON offers
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
CREATE TRIGGER sites_serving_changed AFTER INSERT OR UPDATE OR DELETE ON sites
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
CREATE TRIGGER blocks_serving_changed AFTER INSERT OR UPDATE OR DELETE ON blocks
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
CREATE TRIGGER site_coefficients_serving_changed AFTER INSERT OR UPDATE OR DELETE ON site_coefficients
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
CREATE TRIGGER device_coefficients_serving_changed AFTER INSERT OR UPDATE OR DELETE ON device_coefficients
  FOR EACH STATEMENT EXECUTE FUNCTION serving_changed();
-- An advertiser's new budget, or money added (a top-up can bring a campaign back); spending is
-- picked up by the regular refresh of balances instead.
CREATE TRIGGER accounts_serving_changed AFTER UPDATE ON accounts
  FOR EACH ROW
  WHEN (NEW.kind = 'advertiser' AND (NEW.daily_budget_micros <> OLD.daily_budget_micros OR NEW.balance_micros > OLD.balance_micros))
  EXECUTE FUNCTION serving_changed();
