import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RETENTION_DEFAULT_DAYS } from '../../../src/modules/privacy/retention-kinds.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { assertEveryBalanceIsItsLedger, createWorld, DESKTOP_UA, engineOf, pathOf } from '../../helpers/serving.ts';

const DAY_MS = 86_400_000;

/** Money as the ledger and the rollups hold it: what retention must never change. */
async function money(server: TestServer) {
  const db = server.server.context.db;
  const ledger = await db.selectFrom('ledger_entries').select(['id', 'amount_micros']).orderBy('id').execute();
  const charged = await sql<{ total: string }>`
    SELECT coalesce(-sum(amount_micros), 0)::text AS total FROM ledger_entries WHERE kind = 'click_charge'`.execute(db);
  const rollup = await sql<{ clicks: string; spend: string }>`
    SELECT coalesce(sum(clicks), 0)::text AS clicks, coalesce(sum(spend_micros), 0)::text AS spend FROM stats_daily`.execute(db);
  return { ledger, charged: charged.rows[0]?.total, rollup: rollup.rows[0] };
}

describe('retention: old rows go in bounded batches, money stays', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function billedClicks(count: number) {
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    for (let index = 0; index < count; index += 1) {
      const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA },
      });
      const url = answer.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '';
      assert.equal((await server.anonymous.get(pathOf(url), { headers: { 'User-Agent': DESKTOP_UA } })).status, 302);
    }
    await engineOf(server).settled();
    return world;
  }

  it('clears click addresses, then deletes clicks, sessions and audit entries past their days; ledger and rollups untouched', async () => {
    const db = server.server.context.db;
    const retention = server.server.context.retention;
    assert.ok(retention);
    await billedClicks(3);
    await sql`INSERT INTO mail_outbox (kind, recipient, subject, body_text, status, created_at)
      VALUES ('test', 'someone@example.com', 's', 'b', 'sent', ${new Date(server.clock.now())})`.execute(db);
    const before = await money(server);
    const clicks = async () => (await sql<{ n: string }>`SELECT count(*)::text AS n FROM clicks`.execute(db)).rows[0]?.n;
    const addresses = async () =>
      (await sql<{ n: string }>`SELECT count(*)::text AS n FROM clicks WHERE address IS NOT NULL`.execute(db)).rows[0]?.n;
    assert.equal(await clicks(), '3');
    assert.equal(await addresses(), '3');

    // Within every retention nothing goes.
    const nothing = await retention.run();
    assert.ok(
      Object.values(nothing).every((count) => count === 0),
      JSON.stringify(nothing),
    );

    // Past the click addresses' days: the addresses are cleared, the clicks stay.
    server.clock.advance((RETENTION_DEFAULT_DAYS.click_addresses + 1) * DAY_MS);
    const first = await retention.run();
    assert.equal(first.click_addresses, 3);
    assert.equal(first.mail_outbox, 1);
    assert.equal(await addresses(), '0');
    assert.equal(await clicks(), '3');

    // A click of today stays when the old ones go.
    server.clock.advance((RETENTION_DEFAULT_DAYS.clicks - RETENTION_DEFAULT_DAYS.click_addresses) * DAY_MS);
    await billedClicks(1);
    const second = await retention.run();
    assert.equal(second.clicks, 3);
    assert.equal(await clicks(), '1');
    assert.ok((second.audit_entries ?? 0) === 0, 'audit entries are kept 730 days');
    assert.ok((second.sessions ?? 0) >= 0);

    server.clock.advance((RETENTION_DEFAULT_DAYS.audit_entries + 1) * DAY_MS);
    const third = await retention.run();
    assert.ok((third.audit_entries ?? 0) > 0, 'the audit trail past its days goes');
    const left = await sql<{ n: string }>`SELECT count(*)::text AS n FROM audit_entries`.execute(db);
    assert.equal(left.rows[0]?.n, '0');

    // Money: the old clicks' ledger rows and rollup lines are all still there, and every balance is its ledger.
    const afterwards = await money(server);
    const kept = new Map(afterwards.ledger.map((row) => [row.id, row.amount_micros]));
    for (const row of before.ledger) assert.equal(kept.get(row.id), row.amount_micros, `ledger row ${row.id} is kept as it was`);
    assert.equal(before.rollup?.spend, before.charged, 'before: the rollup spend is the ledger charges');
    assert.equal(afterwards.rollup?.spend, afterwards.charged, 'after: the rollup spend is still the ledger charges');
    assert.equal(Number(afterwards.rollup?.clicks), Number(before.rollup?.clicks) + 1);
    await assertEveryBalanceIsItsLedger(db);

    const metrics = await server.operator.get('/api/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    const series = metrics.text.split('\n').filter((line) => line.startsWith('nativa_retention_deleted_total{'));
    assert.ok(series.includes('nativa_retention_deleted_total{kind="clicks"} 4'), series.join('\n'));
    assert.ok(series.includes('nativa_retention_deleted_total{kind="click_addresses"} 4'), series.join('\n'));
  });

  it('deletes in batches of at most RETENTION_BATCH_ROWS, and 0 days keeps a kind forever', async () => {
    const db = server.server.context.db;
    const { RetentionJob, RETENTION_BATCH_ROWS } = await import('../../../src/modules/privacy/retention-job.ts');
    const old = new Date(server.clock.now() - 100 * DAY_MS);
    const advertiser = await server.createAccount('advertiser');
    await sql`INSERT INTO audience_members (advertiser_id, visitor_id, last_seen_at)
      SELECT ${advertiser.id}, 'v' || n, ${old} FROM generate_series(1, ${RETENTION_BATCH_ROWS * 2 + 5}) AS n`.execute(db);
    const keepAll = new RetentionJob({
      db,
      clock: server.clock,
      days: { ...RETENTION_DEFAULT_DAYS, audience_members: 0 },
      intervalMs: 60_000,
      onError: (error) => assert.fail(String(error)),
    });
    assert.equal((await keepAll.run()).audience_members, undefined);
    const job = new RetentionJob({
      db,
      clock: server.clock,
      days: { ...RETENTION_DEFAULT_DAYS },
      intervalMs: 60_000,
      onError: (error) => assert.fail(String(error)),
    });
    assert.equal((await job.run()).audience_members, RETENTION_BATCH_ROWS * 2 + 5);
    const left = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM audience_members WHERE advertiser_id = ${advertiser.id}`.execute(db);
    assert.equal(left.rows[0]?.n, '0');
  });
});
