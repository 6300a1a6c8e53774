-- Device targeting: the device types a campaign serves to (desktop, mobile, tablet), beside its
-- per-device quality coefficients. Empty (the default) is every device, so existing campaigns
-- serve exactly as before.
ALTER TABLE campaigns
  ADD COLUMN device_targets text[] NOT NULL DEFAULT '{}'
    CHECK (device_targets <@ ARRAY['desktop', 'mobile', 'tablet']::text[]);
