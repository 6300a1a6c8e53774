import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';

const MIGRATION = path.join(import.meta.dirname, '..', '..', 'src', 'db', 'migrations', '0640-privacy.sql');

/**
 * Migration 0640's truncation of rows written before it, run as the file has it over rows with full
 * addresses: more clicks than one batch, sessions and audit entries (append-only but for the
 * maintenance the migration declares). The schema part of the file has run already (the test
 * database is migrated), so only its statements from the clicks' batches on are run again.
 */
describe('migration 0640 truncates the addresses of existing rows', () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  it('truncates clicks in batches, sessions and the audit trail, and nothing else', async () => {
    const db = database.db;
    const text = readFileSync(MIGRATION, 'utf8');
    const dataPart = text.slice(text.indexOf('-- Clicks can be many'));
    assert.ok(dataPart.length > 0 && dataPart.includes('UPDATE audit_entries'));
    const clicks = 10_000 + 7;
    await sql`INSERT INTO clicks (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, advertiser_id,
        publisher_id, status, address)
      SELECT 'c' || n, now(), 1, 1, 1, 1, 1, 1, 1, 'bot',
        CASE WHEN n % 2 = 0 THEN ('203.0.' || (n % 250) || '.' || (n % 200 + 1))::inet ELSE '2001:db8:abcd:12::7'::inet END
      FROM generate_series(1, ${clicks}) AS n`.execute(db);
    const account = await sql<{ id: number }>`
      INSERT INTO accounts (kind, username, email) VALUES ('advertiser', 'mig-0640', 'mig-0640@example.test') RETURNING id`.execute(
      db,
    );
    const accountId = account.rows[0]?.id ?? 0;
    await sql`INSERT INTO sessions (account_id, token_hash, last_seen_at, expires_at, remote_address)
      VALUES (${accountId}, ${Buffer.from('mig-0640')}, now(), now() + interval '1 day', '::ffff:198.51.100.77')`.execute(db);
    await sql`INSERT INTO audit_entries (account_id, actor_kind, remote_address, action, object_type, object_id, created_at)
      VALUES (${accountId}, 'operator', '2001:db8:1:2:3:4:5:6', 'test', 'test', '1', now())`.execute(db);

    await database.withSession(async (run) => {
      await run('BEGIN');
      await run(dataPart);
      await run('COMMIT');
    });

    const full = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM clicks WHERE address <> nativa_truncated_address(address)`.execute(db);
    assert.equal(full.rows[0]?.n, '0');
    const v4 = await sql<{ address: string }>`SELECT address::text AS address FROM clicks WHERE click_id = 'c2'`.execute(db);
    assert.equal(v4.rows[0]?.address, '203.0.2.0/32');
    const v6 = await sql<{ address: string }>`SELECT address::text AS address FROM clicks WHERE click_id = 'c1'`.execute(db);
    assert.equal(v6.rows[0]?.address, '2001:db8:abcd::/128');
    const session = await sql<{
      remote_address: string;
    }>`SELECT remote_address FROM sessions WHERE account_id = ${accountId}`.execute(db);
    assert.equal(session.rows[0]?.remote_address, '198.51.100.0');
    const audit = await sql<{
      remote_address: string;
    }>`SELECT remote_address FROM audit_entries WHERE account_id = ${accountId}`.execute(db);
    assert.equal(audit.rows[0]?.remote_address, '2001:db8:1::');
    // The maintenance setting was the migration's own transaction's: requests still cannot change the trail.
    await assert.rejects(sql`DELETE FROM audit_entries WHERE account_id = ${accountId}`.execute(db), /append-only/);
    assert.equal((await sql<{ n: string }>`SELECT count(*)::text AS n FROM clicks`.execute(db)).rows[0]?.n, String(clicks));
  });
});
