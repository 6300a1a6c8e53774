-- A counter that moves whenever a token row is updated or deleted (a revocation), so that every
-- instance, polling this one row every second, can drop its cached token lookups without asking
-- about each token (docs/adr/0004). Creating a token needs nothing: unknown tokens are not cached.
CREATE TABLE token_changes (
  id       smallint PRIMARY KEY CHECK (id = 1),
  version  bigint NOT NULL
);
INSERT INTO token_changes (id, version) VALUES (1, 0);

CREATE FUNCTION token_changed() RETURNS trigger AS $$
BEGIN
  UPDATE token_changes SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER api_tokens_changed AFTER UPDATE OR DELETE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION token_changed();
