-- Counters that move whenever something other instances cache has changed, so that each instance
-- polls one small row instead of asking about everything it caches. One table and one trigger
-- function for all of them, the counter's name being the trigger's argument:
--   serving: what the serving index is built from (was the one-row table serving_changes of 0300);
--   tokens:  updates and deletes of token rows, i.e. revocations (docs/adr/0004). Creating a token
--            needs nothing: unknown tokens are not cached.
CREATE TABLE change_counters (
  name     text PRIMARY KEY,
  version  bigint NOT NULL DEFAULT 0
);
INSERT INTO change_counters (name, version) SELECT 'serving', version FROM serving_changes;
INSERT INTO change_counters (name) VALUES ('tokens');

CREATE FUNCTION count_change() RETURNS trigger AS $$
BEGIN
  UPDATE change_counters SET version = version + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- The serving triggers of 0300, moved to the shared counter (same tables, events and condition).
DROP TRIGGER campaigns_serving_changed ON campaigns;
DROP TRIGGER offers_serving_changed ON offers;
DROP TRIGGER sites_serving_changed ON sites;
DROP TRIGGER blocks_serving_changed ON blocks;
DROP TRIGGER site_coefficients_serving_changed ON site_coefficients;
DROP TRIGGER device_coefficients_serving_changed ON device_coefficients;
DROP TRIGGER accounts_serving_changed ON accounts;
DROP FUNCTION serving_changed();
DROP TABLE serving_changes;

CREATE TRIGGER campaigns_serving_changed AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER offers_serving_changed AFTER INSERT OR UPDATE OR DELETE ON offers
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER sites_serving_changed AFTER INSERT OR UPDATE OR DELETE ON sites
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER blocks_serving_changed AFTER INSERT OR UPDATE OR DELETE ON blocks
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER site_coefficients_serving_changed AFTER INSERT OR UPDATE OR DELETE ON site_coefficients
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER device_coefficients_serving_changed AFTER INSERT OR UPDATE OR DELETE ON device_coefficients
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('serving');
CREATE TRIGGER accounts_serving_changed AFTER UPDATE ON accounts
  FOR EACH ROW
  WHEN (NEW.kind = 'advertiser' AND (NEW.daily_budget_micros <> OLD.daily_budget_micros OR NEW.balance_micros > OLD.balance_micros))
  EXECUTE FUNCTION count_change('serving');

CREATE TRIGGER api_tokens_changed AFTER UPDATE OR DELETE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION count_change('tokens');
