-- Invalid traffic in one vocabulary (docs/invalid-traffic.md). General invalid traffic is refused
-- when it arrives: the click is recorded unbilled (status/refusal `bot`) and `invalid_reason` says
-- which rule refused it: bot (a declared robot), automation (headless and automation markers),
-- datacenter (a hosting or cloud network), prefetch (a prefetch or prerender request), foreign_site
-- (the block's code on a domain that is not its site's). Rows recorded before this migration have no
-- reason; a `bot` row without one is a declared robot.
-- Sophisticated invalid traffic is refunded after billing, with the refund's reason: no_opportunity
-- (clicked with no chance to see the ad), repeat_click (one visitor on one advertiser again and
-- again), concentration (a block's clicks concentrated in one network with an abnormal CTR),
-- network_mismatch (a link used from another country and network than it was served to), beside
-- the reasons refunds already had.
ALTER TABLE accepted_clicks ADD COLUMN invalid_reason text
  CHECK (invalid_reason IN ('bot', 'automation', 'datacenter', 'prefetch', 'foreign_site'));
ALTER TABLE clicks ADD COLUMN invalid_reason text
  CHECK (invalid_reason IN ('bot', 'automation', 'datacenter', 'prefetch', 'foreign_site'));

ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check CHECK (reason IN (
  'bot', 'duplicate', 'datacenter', 'click_flood', 'publisher_fraud', 'manual',
  'no_opportunity', 'repeat_click', 'concentration', 'network_mismatch'
));
