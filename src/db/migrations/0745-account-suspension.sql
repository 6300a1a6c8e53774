-- Suspended accounts (docs/operating.md, "Suspending an account").
--
-- An operator suspends an advertiser or a publisher: it cannot sign in, its sessions are revoked
-- and its API tokens too (in the same transaction), and nothing of it serves: the serving snapshot
-- leaves out the ads of a suspended advertiser and the blocks of a suspended publisher. Reinstating
-- clears both columns; the revoked sessions and tokens stay revoked.
ALTER TABLE accounts ADD COLUMN suspended_at timestamptz;
ALTER TABLE accounts ADD COLUMN suspension_reason text NOT NULL DEFAULT '';

-- The snapshot is rebuilt when an account's suspension changes, whatever its kind.
CREATE TRIGGER accounts_suspension_serving_changed AFTER UPDATE ON accounts
  FOR EACH ROW
  WHEN (NEW.suspended_at IS DISTINCT FROM OLD.suspended_at)
  EXECUTE FUNCTION count_change('serving');
