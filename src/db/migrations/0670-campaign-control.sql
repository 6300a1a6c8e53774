-- Issue 30: the control advertisers and publishers expect. Campaigns: flight dates, a lifetime
-- budget, even pacing, operating-system and browser targets, site allow and block lists.
-- Sites: the ad categories they refuse. Blocks: a minimum CPC (an auction floor) and a design.
-- Every default leaves existing campaigns, sites and blocks serving exactly as before.
ALTER TABLE campaigns
  ADD COLUMN starts_at timestamptz,
  ADD COLUMN ends_at timestamptz,
  ADD COLUMN total_budget_micros bigint NOT NULL DEFAULT 0 CHECK (total_budget_micros >= 0),
  ADD COLUMN pacing text NOT NULL DEFAULT 'asap' CHECK (pacing IN ('asap', 'even')),
  ADD COLUMN os_targets text[] NOT NULL DEFAULT '{}',
  ADD COLUMN browser_targets text[] NOT NULL DEFAULT '{}',
  ADD COLUMN site_allow text[] NOT NULL DEFAULT '{}',
  ADD COLUMN site_block text[] NOT NULL DEFAULT '{}',
  ADD CONSTRAINT campaigns_flight_order CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at);

ALTER TABLE sites
  ADD COLUMN refused_categories integer[] NOT NULL DEFAULT '{}';

ALTER TABLE blocks
  ADD COLUMN min_cpc_micros bigint NOT NULL DEFAULT 0 CHECK (min_cpc_micros >= 0),
  ADD COLUMN design jsonb;
