import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf, statsTotals } from '../../helpers/serving.ts';

/**
 * A refresh of the serving index that comes between a click's acceptance and its settlement reads
 * spend without that click. The index must still count it, or a daily click limit lets the next
 * visitor's click through. The settlement is held back by a lock on the ledger from a second
 * connection, so the refresh surely comes in between: that needs PostgreSQL (PGlite has one
 * connection, which the lock would hold).
 */
describe('a refresh between a click’s acceptance and its settlement', {
  skip: process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL): a lock held from a second connection',
}, () => {
  let server: TestServer;
  const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  async function teaserUrls(blockId: number): Promise<string[]> {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, desktop);
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { url: string }[] }>().teasers.map((teaser) => teaser.url);
  }

  it('still counts the unsettled click against the campaign’s daily click limit', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }] });
    const campaignId = world.campaignIds[0] ?? 0;
    await db.updateTable('campaigns').set({ daily_click_limit: 1 }).where('id', '=', campaignId).execute();
    await engineOf(server).refresh();
    const [url = ''] = await teaserUrls(world.blockId);

    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // One pooled connection holds the ledger: the settlement's statement, which writes ledger rows,
    // waits for it; the refresh reads balances and spend, which the lock does not stop.
    const holder = db.connection().execute(async (connection) => {
      await sql`BEGIN`.execute(connection);
      await sql`LOCK TABLE ledger_entries IN EXCLUSIVE MODE`.execute(connection);
      locked();
      await released;
      await sql`ROLLBACK`.execute(connection);
    });
    try {
      await lockTaken;
      const click = await server.anonymous.get(pathOf(url), desktop);
      assert.equal(click.status, 302);
      await engineOf(server).tick();
      assert.equal((await statsTotals(db, { campaignIds: [campaignId] })).clicks, 0, 'the click is not settled yet');
      assert.deepEqual(await teaserUrls(world.blockId), [], 'the limit of one click a day holds before the settlement');
    } finally {
      release();
      await holder;
    }
    await engineOf(server).settled();
    assert.equal((await statsTotals(db, { campaignIds: [campaignId] })).clicks, 1);
    await engineOf(server).tick();
    assert.deepEqual(await teaserUrls(world.blockId), [], 'and after it');
  });
});
