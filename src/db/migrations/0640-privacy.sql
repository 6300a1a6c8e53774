-- Issue 28: privacy and compliance (docs/privacy.md, docs/adr/0040).

-- A publisher's "never personalise": impressions of the site's blocks use no personal data,
-- whatever the visitor's consent signals say.
ALTER TABLE sites ADD COLUMN never_personalise boolean NOT NULL DEFAULT false;

-- The latest check of the site's /ads.txt for the network's line: unchecked, found, missing
-- (the file answered without the line) or unreachable (no file, an error, a timeout, a refused
-- address), with a short detail for the operator.
ALTER TABLE sites ADD COLUMN ads_txt_status text NOT NULL DEFAULT 'unchecked'
  CHECK (ads_txt_status IN ('unchecked', 'found', 'missing', 'unreachable'));
ALTER TABLE sites ADD COLUMN ads_txt_detail text NOT NULL DEFAULT '';
ALTER TABLE sites ADD COLUMN ads_txt_checked_at timestamptz;

-- An erased account (its personal fields blanked, its money records kept).
ALTER TABLE accounts ADD COLUMN erased_at timestamptz;

-- Stored addresses keep their network only: IPv4 /24, IPv6 /48 (an IPv4 address written in IPv6
-- form is IPv4). The function is what this migration applies to existing rows; the server
-- truncates addresses before it writes them (src/http/stored-address.ts).
CREATE FUNCTION nativa_truncated_address(address inet) RETURNS inet
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT host(network(set_masklen(address, CASE family(address) WHEN 4 THEN 24 ELSE 48 END)))::inet
$$;

CREATE FUNCTION nativa_truncated_address_text(address text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE
    WHEN address = '' THEN ''
    WHEN address ~* '^::ffff:[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' THEN host(nativa_truncated_address(substr(address, 8)::inet))
    WHEN address ~ '^[0-9a-fA-F:.]+$' THEN host(nativa_truncated_address(address::inet))
    ELSE ''
  END
$$;

-- The audit trail stays append-only for requests; only maintenance that says so in its own
-- transaction (`SET LOCAL nativa.audit_maintenance = 'on'`) may change it: this migration's
-- truncation of its addresses and the retention job's deletion of entries past their days.
CREATE OR REPLACE FUNCTION audit_entries_append_only() RETURNS trigger AS $$
BEGIN
  IF current_setting('nativa.audit_maintenance', true) = 'on' THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_entries is append-only';
END;
$$ LANGUAGE plpgsql;

-- Clicks can be many: truncated in batches of 10,000 rows (one transaction, as every migration,
-- but no single statement holds the whole table).
DO $$
DECLARE
  moved integer;
BEGIN
  LOOP
    UPDATE clicks SET address = nativa_truncated_address(address)
    WHERE click_id IN (
      SELECT click_id FROM clicks
      WHERE address IS NOT NULL AND address <> nativa_truncated_address(address)
      LIMIT 10000
    );
    GET DIAGNOSTICS moved = ROW_COUNT;
    EXIT WHEN moved = 0;
  END LOOP;
END
$$;

UPDATE accepted_clicks SET address = nativa_truncated_address(address)
WHERE address IS NOT NULL AND address <> nativa_truncated_address(address);
UPDATE sessions SET remote_address = nativa_truncated_address_text(remote_address)
WHERE remote_address <> nativa_truncated_address_text(remote_address);
SET LOCAL nativa.audit_maintenance = 'on';
UPDATE audit_entries SET remote_address = nativa_truncated_address_text(remote_address)
WHERE remote_address <> nativa_truncated_address_text(remote_address);
SET LOCAL nativa.audit_maintenance = 'off';
