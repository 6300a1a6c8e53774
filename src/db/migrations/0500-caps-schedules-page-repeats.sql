-- Issue 17, parts 2 and 3. Campaigns: a frequency cap (views per visitor per day, 0 = none) and a
-- schedule (hours of the week when they serve, 0 = Monday 00:00, NULL = always) in a time zone of
-- their own (NULL = the platform's, TZ). Blocks: the publisher's "no campaign repeats on a page".
-- Every default leaves existing campaigns and blocks serving exactly as before.
ALTER TABLE campaigns
  ADD COLUMN frequency_cap integer NOT NULL DEFAULT 0 CHECK (frequency_cap >= 0),
  ADD COLUMN schedule_hours smallint[],
  ADD COLUMN time_zone text;

ALTER TABLE blocks
  ADD COLUMN no_campaign_repeats boolean NOT NULL DEFAULT false;
