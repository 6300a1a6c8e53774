-- The seen-set of counted views (0480) is written on every flush of beacons: one row per viewable
-- impression, thousands a second at scale. Two changes make each row cheaper to insert:
-- * `token_id` compares bytewise (COLLATE "C"): the ids are random base64url, for which a
--   language collation only adds cost, and the flush sorts them in this order (JavaScript's
--   default sort orders ASCII as "C" does) so that concurrent flushes lock in the same order.
-- * A flush now stamps all of its rows with one expiry (the latest any of its tokens can have), so
--   the expiry index receives runs of equal keys, which B-tree deduplication stores once.
-- The table only holds the last hour of ids: rewriting it here is cheap.
ALTER TABLE viewed_impressions ALTER COLUMN token_id TYPE text COLLATE "C";
