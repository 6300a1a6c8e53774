import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createCrashDatabase, freePort, request, startChildServer, stopChild } from '../helpers/child-server.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  DESKTOP_UA,
} from '../helpers/serving.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The database survives kill -9 of the server, on the embedded PGlite (DATA_DIR) as on PostgreSQL
 * (TEST_DATABASE_URL): the real server runs as a child process under write load (writers creating
 * campaigns, moving money to a client, the operator crediting them) and click load at once, and is
 * killed with SIGKILL several times, restarting on the same data each time. Afterwards the database
 * opens, every write that got its 2xx and every click that got its 302 is there exactly once,
 * and every balance equals its ledger. What PGlite promises is in docs/adr/0009.
 */

const KILLS = 3;
/**
 * Each life of the server runs under load for at least this long, and until it has redirected and
 * acknowledged enough to be worth a kill (a busy machine takes longer to get there).
 */
const LOAD_MS = 1500;
const PER_LIFE = 12;
const WRITERS = 4;
const CLICKERS = 4;

interface Writer {
  token: string;
  accountId: number;
  clientId: number;
  campaignTitles: string[];
  depositComments: string[];
  transfers: number;
}

describe('kill -9 under write and click load, restarted on the same data', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-crash-embedded-'));
  let dropDatabase = async () => {};
  let child: ChildProcess | undefined;

  after(async () => {
    if (child) await stopChild(child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase();
  });

  it('keeps every acknowledged write and redirected click exactly once; balances equal ledgers', {
    timeout: 120_000,
  }, async () => {
    const postgres = await createCrashDatabase('nativa_crash_embedded');
    if (postgres) dropDatabase = postgres.drop;
    const databaseUrl = postgres?.url;
    const openData = (): Promise<Database> => openDatabase({ databaseUrl, dataDir });

    // Serving data is prepared before the server starts: an embedded database has one owner at a time.
    const seed = await openData();
    let blockId = 0;
    try {
      await migrate(seed);
      const advertiser = await insertAccount(seed.db, {
        kind: 'advertiser',
        username: 'clicks-advertiser',
        depositMicros: 1_000_000_000,
      });
      const publisher = await insertAccount(seed.db, { kind: 'publisher', username: 'clicks-publisher' });
      for (let index = 0; index < 6; index += 1) {
        const campaign = await insertCampaign(seed.db, { advertiserId: advertiser.id });
        await insertOffer(seed.db, { campaignId: campaign.id, bidMicros: 50_000 + index * 10_000 });
      }
      const site = await insertSite(seed.db, { publisherId: publisher.id });
      blockId = (await insertBlock(seed.db, { siteId: site.id, teaserCount: 4 })).id;
    } finally {
      await seed.close();
    }

    const port = await freePort();
    const base = `https://127.0.0.1:${port}`;
    const start = () =>
      startChildServer({ dataDir, port, databaseUrl, env: { RATE_LIMIT_RPS: '1000000', SERVING_REFRESH_MS: '200' } });
    child = await start();
    const operatorToken = readFileSync(path.join(dataDir, 'operator.token'), 'utf8').trim();
    const setupAgent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
    const call = async (token: string, method: string, url: string, body?: unknown) => {
      const response = await request(setupAgent, method, `${base}${url}`, { headers: { 'Auth-Token': token }, body });
      assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.body}`);
      return JSON.parse(response.body || 'null');
    };
    const writers: Writer[] = [];
    for (let index = 0; index < WRITERS; index += 1) {
      const account = await call(operatorToken, 'POST', '/api/admin/users', {
        type: 'advertiser',
        username: `writer-${index}`,
        email: `writer-${index}@example.test`,
      });
      const { token } = await call(operatorToken, 'POST', `/api/admin/users/${account.id}/tokens`, { name: 'crash' });
      await call(operatorToken, 'POST', `/api/admin/users/${account.id}/balance`, {
        amount: '1000',
        comment: `writer-${index} start`,
      });
      const client = await call(token, 'POST', '/api/advertiser/users', {
        user: `writer-${index}-client`,
        email: `c${index}@example.test`,
      });
      writers.push({ token, accountId: account.id, clientId: client.id, campaignTitles: [], depositComments: [], transfers: 0 });
    }
    setupAgent.destroy();

    const redirectedClickIds: string[] = [];
    let attempts = 0;
    for (let life = 1; life <= KILLS; life += 1) {
      if (life > 1) child = await start();
      const agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
      let running = true;
      const write = async (writer: Writer, index: number) => {
        while (running) {
          attempts += 1;
          const step = attempts;
          try {
            const title = `writer-${index} campaign ${step}`;
            const campaign = await request(agent, 'POST', `${base}/api/advertiser/campaigns`, {
              headers: { 'Auth-Token': writer.token },
              body: { title, category_id: 1 },
            });
            if (campaign.status === 201) writer.campaignTitles.push(title);
            const transfer = await request(agent, 'PUT', `${base}/api/advertiser/users/${writer.clientId}`, {
              headers: { 'Auth-Token': writer.token },
              body: { balance: '0.01' },
            });
            if (transfer.status === 200) writer.transfers += 1;
            const comment = `writer-${index} deposit ${step}`;
            const deposit = await request(agent, 'POST', `${base}/api/admin/users/${writer.accountId}/balance`, {
              headers: { 'Auth-Token': operatorToken },
              body: { amount: '0.5', comment },
            });
            if (deposit.status === 200) writer.depositComments.push(comment);
          } catch {
            // The connection died with the server.
          }
        }
      };
      const click = async () => {
        while (running) {
          try {
            const teasers = await request(agent, 'GET', `${base}/api/serve/blocks/${blockId}/teasers`, {
              headers: { 'User-Agent': DESKTOP_UA },
            });
            if (teasers.status !== 200) continue;
            const list = (JSON.parse(teasers.body) as { teasers: { url: string }[] }).teasers;
            const link = list[Math.floor(Math.random() * list.length)];
            if (link === undefined) continue;
            const clicked = await request(agent, 'GET', link.url, { headers: { 'User-Agent': DESKTOP_UA } });
            const clickId = clicked.status === 302 && clicked.location ? new URL(clicked.location).searchParams.get('id') : null;
            if (clickId) redirectedClickIds.push(clickId);
          } catch {
            // The connection died with the server.
          }
        }
      };
      const load = [...writers.map((writer, index) => write(writer, index)), ...Array.from({ length: CLICKERS }, click)];
      const lifeStart = Date.now();
      const acknowledgedSoFar = () =>
        writers.reduce((sum, writer) => sum + writer.campaignTitles.length + writer.depositComments.length + writer.transfers, 0);
      const clicksBefore = redirectedClickIds.length;
      const writesBefore = acknowledgedSoFar();
      await waitFor(
        `life ${life} to redirect and acknowledge ${PER_LIFE} of each`,
        () =>
          Date.now() - lifeStart >= LOAD_MS &&
          redirectedClickIds.length - clicksBefore >= PER_LIFE &&
          acknowledgedSoFar() - writesBefore >= PER_LIFE,
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      await stopChild(child, 'SIGKILL');
      running = false;
      await Promise.all(load);
      agent.destroy();
    }

    // A last start recovers the database and settles the clicks accepted before the kill; a clean
    // stop then hands the data back to the test.
    child = await start();
    await stopChild(child, 'SIGTERM');

    const check = await openData();
    try {
      const { db } = check;
      const campaignCounts = new Map(
        (
          await db
            .selectFrom('campaigns')
            .select((eb) => ['title', eb.fn.countAll<string>().as('rows')])
            .where('title', 'like', 'writer-%')
            .groupBy('title')
            .execute()
        ).map((row) => [row.title, Number(row.rows)]),
      );
      const depositCounts = new Map(
        (
          await db
            .selectFrom('ledger_entries')
            .select((eb) => ['comment', eb.fn.countAll<string>().as('rows')])
            .where('comment', 'like', 'writer-% deposit %')
            .groupBy('comment')
            .execute()
        ).map((row) => [row.comment, Number(row.rows)]),
      );
      for (const count of [...campaignCounts.values(), ...depositCounts.values()]) assert.equal(count, 1, 'no write twice');
      let acknowledged = 0;
      for (const writer of writers) {
        for (const title of writer.campaignTitles) assert.equal(campaignCounts.get(title), 1, `campaign "${title}" got 201`);
        for (const comment of writer.depositComments) assert.equal(depositCounts.get(comment), 1, `deposit "${comment}" got 200`);
        // A transfer has no key of its own: the client's ledger holds every acknowledged one, plus
        // at most the one in flight at each kill.
        const transfers = await db
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.countAll<string>().as('rows'))
          .where('account_id', '=', writer.clientId)
          .executeTakeFirstOrThrow();
        assert.ok(Number(transfers.rows) >= writer.transfers, `writer ${writer.accountId}: every acknowledged transfer is there`);
        assert.ok(Number(transfers.rows) <= writer.transfers + KILLS, `writer ${writer.accountId}: no transfer twice`);
        acknowledged += writer.campaignTitles.length + writer.depositComments.length + writer.transfers;
      }

      assert.deepEqual(
        await db.selectFrom('accepted_clicks').select('click_id').execute(),
        [],
        'every accepted click is settled',
      );
      const billed = new Map(
        (await db.selectFrom('clicks').select(['click_id', 'status']).execute()).map((row) => [row.click_id, row.status]),
      );
      for (const clickId of redirectedClickIds) assert.equal(billed.get(clickId), 'billed', `click ${clickId} got its 302`);
      assert.equal(new Set(redirectedClickIds).size, redirectedClickIds.length, 'every 302 was for a different click');
      await assertClicksMatchTheirLedgerRows(db);
      await assertCampaignRollupMatchesAdRollup(db);
      await assertEveryBalanceIsItsLedger(db);

      assert.ok(acknowledged > 30, `the writers were acknowledged (${acknowledged})`);
      assert.ok(redirectedClickIds.length > 30, `the load produced clicks (${redirectedClickIds.length})`);
      process.stdout.write(
        `# crash (${check.kind}): ${KILLS} kills, ${acknowledged} acknowledged writes of ${attempts} attempted rounds, ${redirectedClickIds.length} redirected clicks, all present once\n`,
      );
    } finally {
      await check.close();
    }
  });
});
