-- Advertisers' optimisation rules (docs/rules-and-export.md, docs/adr/0015). A rule watches one
-- campaign's sites, blocks, device types or ads over a window of days and, when a figure crosses
-- its threshold, sets a coefficient, blocks (coefficient 0.1) or pauses an ad. `threshold_micros`
-- holds the threshold times 1,000,000 whatever the metric (money, % or a count), so comparisons
-- are exact integer arithmetic. `next_run_at` is the scheduler's lease: an instance claims a due
-- rule by moving it forward in one UPDATE, so two instances never run one rule at once.
CREATE TABLE campaign_rules (
  id               serial PRIMARY KEY,
  campaign_id      integer NOT NULL REFERENCES campaigns (id),
  title            text NOT NULL DEFAULT '',
  scope            text NOT NULL CHECK (scope IN ('site', 'block', 'device', 'ad')),
  metric           text NOT NULL CHECK (metric IN ('cpa', 'ctr', 'conversions', 'spend_without_conversion')),
  comparison       text NOT NULL CHECK (comparison IN ('gt', 'gte', 'lt', 'lte')),
  threshold_micros bigint NOT NULL CHECK (threshold_micros >= 0),
  window_days      integer NOT NULL CHECK (window_days BETWEEN 1 AND 366),
  min_clicks       integer NOT NULL DEFAULT 0 CHECK (min_clicks >= 0),
  action           text NOT NULL CHECK (action IN ('set_coefficient', 'block', 'pause')),
  coef             numeric(6, 4) CHECK (coef BETWEEN 0.1 AND 10),
  enabled          boolean NOT NULL DEFAULT true,
  next_run_at      timestamptz NOT NULL,
  last_run_at      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaign_rules_campaign_idx ON campaign_rules (campaign_id, id);
CREATE INDEX campaign_rules_due_idx ON campaign_rules (next_run_at) WHERE enabled;

-- Every change a rule applied, with the figures and window that triggered it. Kept when the rule
-- is deleted (no foreign key to it): it is the campaign's history.
CREATE TABLE rule_changes (
  id              bigserial PRIMARY KEY,
  rule_id         integer NOT NULL,
  campaign_id     integer NOT NULL REFERENCES campaigns (id),
  run_kind        text NOT NULL CHECK (run_kind IN ('manual', 'schedule')),
  object_kind     text NOT NULL CHECK (object_kind IN ('site', 'block', 'device', 'ad')),
  site_id         integer NOT NULL DEFAULT 0,
  block_id        integer NOT NULL DEFAULT 0,
  device          smallint NOT NULL DEFAULT 0,
  offer_id        integer NOT NULL DEFAULT 0,
  field           text NOT NULL CHECK (field IN ('coef', 'active')),
  before_value    numeric(6, 4) NOT NULL,
  after_value     numeric(6, 4) NOT NULL,
  views           bigint NOT NULL,
  clicks          bigint NOT NULL,
  spend_micros    bigint NOT NULL,
  orders          bigint NOT NULL,
  window_from     date NOT NULL,
  window_to       date NOT NULL,
  created_at      timestamptz NOT NULL
);
CREATE INDEX rule_changes_campaign_idx ON rule_changes (campaign_id, id);

-- The click log export reads an advertiser's clicks in time order, a page at a time.
CREATE INDEX clicks_advertiser_time_idx ON clicks (advertiser_id, created_at, click_id);
