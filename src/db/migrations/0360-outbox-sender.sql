-- The outbox is delivered by a background sender per instance instead of inside the request
-- that wrote the message. `next_attempt_at` schedules a message (null: not scheduled, the operator
-- sends it by hand); `claimed_until` is the lease of the instance sending it, so two instances
-- never send one message at once, and a message whose sender died is taken up after the lease.
-- Messages written before this migration keep their old behaviour: not scheduled.
ALTER TABLE mail_outbox ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE mail_outbox ADD COLUMN claimed_until timestamptz;
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
