-- The name of each deleted optimisation rule. Its changes stay in rule_changes, the campaign's
-- history, which a rule's id alone cannot name once the rule is gone: this keeps the title it had
-- when it was deleted, so the history can still list it, name it and be filtered by it
-- (docs/rules-and-export.md). Rules deleted before this table have no row; the history calls them
-- by id. `id` is the rule's id from campaign_rules (a serial, never given again).
CREATE TABLE deleted_rules (
  id          integer PRIMARY KEY,
  campaign_id integer NOT NULL REFERENCES campaigns (id),
  title       text NOT NULL,
  deleted_at  timestamptz NOT NULL
);
