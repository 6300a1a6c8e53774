// Webhook delivery lag under load: `node bench/webhooks-lag.ts pglite|postgres`. A real `nativa serve`
// runs as a child process (fresh DATA_DIR; PostgreSQL: a fresh database on BENCH_DATABASE_URL) with
// two endpoints of one advertiser pointing at an HTTPS receiver on loopback in this process.
// WEBHOOK_LAG_CONNECTIONS (default 8) loops of operator moderation decisions (PUT
// /api/admin/campaigns/:id, each one event and two deliveries) run for WEBHOOK_LAG_SECONDS
// (default 20). Lag = the receiver's clock at arrival − the event's `created` (taken by the server
// when the request began), so it includes the request's own transaction and commit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { insertEndpoint, replaceSubscriptions } from '../src/modules/webhooks/webhook-repository.ts';
import { createCrashDatabase, freePort, request, startChildServer, stopChild } from '../test/helpers/child-server.ts';
import { insertAccount, insertCampaign } from '../test/helpers/fixtures.ts';
import { testTls } from '../test/helpers/server.ts';
import { waitFor } from '../test/helpers/wait.ts';
import { WebhookReceiver } from '../test/helpers/webhook-receiver.ts';

const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const seconds = Number(process.env.WEBHOOK_LAG_SECONDS ?? 20);
const connections = Number(process.env.WEBHOOK_LAG_CONNECTIONS ?? 8);
if (kind === 'postgres' && !process.env.TEST_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}
if (kind === 'pglite') delete process.env.TEST_DATABASE_URL;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-webhooks-lag-'));
const postgres = await createCrashDatabase('nativa_webhooks_lag');
const tls = await testTls();
const receiver = await new WebhookReceiver(tls).start();
const lags: number[] = [];
receiver.answer = (webhook) => {
  lags.push(Date.now() - Date.parse(webhook.event.created));
  return { status: 204 };
};
const caFile = path.join(dataDir, 'receiver-ca.pem');
writeFileSync(caFile, tls.cert);
try {
  const seed = await openDatabase({ databaseUrl: postgres?.url, dataDir });
  const campaignIds: number[] = [];
  try {
    await migrate(seed);
    const advertiser = await insertAccount(seed.db, { kind: 'advertiser', username: 'lag-advertiser' });
    for (let index = 0; index < 50; index += 1)
      campaignIds.push((await insertCampaign(seed.db, { advertiserId: advertiser.id })).id);
    for (const suffix of ['a', 'b']) {
      const fields = { url: `${receiver.url}/${suffix}`, description: '', active: true, balanceThresholdMicros: null };
      const id = await insertEndpoint(seed.db, advertiser.id, fields, `whsec_${suffix}`, new Date());
      await replaceSubscriptions(seed.db, id, ['campaign.moderated']);
    }
  } finally {
    await seed.close();
  }

  const port = await freePort();
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: caFile, RATE_LIMIT_RPS: '1000000', LOG_LEVEL: 'error' };
  const child = await startChildServer({ dataDir, port, databaseUrl: postgres?.url, env });
  try {
    const token = readFileSync(path.join(dataDir, 'operator.token'), 'utf8').trim();
    const agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
    const base = `https://127.0.0.1:${port}`;
    let writes = 0;
    const until = Date.now() + seconds * 1000;
    const loop = async (lane: number) => {
      for (let turn = 0; Date.now() < until; turn += 1) {
        const campaignId = campaignIds[(lane * 7 + turn) % campaignIds.length];
        const response = await request(agent, 'PUT', `${base}/api/admin/campaigns/${campaignId}`, {
          headers: { 'Auth-Token': token },
          body: { status: turn % 2 },
        });
        if (response.status !== 200) throw new Error(`moderation answered ${response.status}: ${response.body}`);
        writes += 1;
      }
    };
    await Promise.all(Array.from({ length: connections }, (_, lane) => loop(lane)));
    await waitFor('every delivery', () => lags.length >= 2 * writes, { timeoutMs: 120_000, intervalMs: 50 });
    agent.destroy();
    const sorted = [...lags].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        database: kind,
        seconds,
        connections,
        writesPerSecond: Math.round(writes / seconds),
        deliveries: lags.length,
        lagMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) },
      }),
    );
  } finally {
    await stopChild(child, 'SIGTERM');
  }
} finally {
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
}
