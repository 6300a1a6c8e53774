-- Viewable impressions (issue 17, docs/serving.md "Viewability"). Every served teaser carries a
-- signed impression token; the loader's beacon sends it back once the teaser has been at least half
-- visible for a continuous second. A token counts one view at most, on every instance: the flush
-- that adds views to the rollup inserts the tokens' ids here in the same transaction, and only the
-- ids it inserted are counted (a replay finds its id already here). A row is needed only while its
-- token could still verify: `expires_at` is the token's expiry (plus the clock skew allowed), after
-- which the flush deletes it.
CREATE TABLE viewed_impressions (
  token_id   text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX viewed_impressions_expires_at ON viewed_impressions (expires_at);
