-- What the after-the-fact rules of invalid traffic read of each click (docs/invalid-traffic.md),
-- written when the click is accepted and carried into `clicks` by its settlement:
-- served_at: when its teaser was served (the click link's time), for clicks with no time to see it;
-- served_asn: the network the teaser was served to; asn and click_country: the network and country
-- the click came from (`country` stays the one the teaser was served to, the statistics' key);
-- visitor_hash: a keyed hash of the visitor (address and User-Agent) whose key changes every day,
-- so it links one visitor's clicks within a day and nothing across days or back to a person.
-- Rows recorded before this migration have none of them and no rule judges them.
ALTER TABLE accepted_clicks
  ADD COLUMN served_at timestamptz,
  ADD COLUMN served_asn integer,
  ADD COLUMN asn integer,
  ADD COLUMN click_country text,
  ADD COLUMN visitor_hash text;
ALTER TABLE clicks
  ADD COLUMN served_at timestamptz,
  ADD COLUMN served_asn integer,
  ADD COLUMN asn integer,
  ADD COLUMN click_country text,
  ADD COLUMN visitor_hash text;
