// How long the advertiser overview takes to draw its chart of a year of daily statistics, in the
// Debian Chromium: `node bench/web-overview.ts` (embedded PGlite) or `node bench/web-overview.ts
// postgres` (a fresh database on BENCH_DATABASE_URL). Its budget: p50 < 500 ms.
//
// One advertiser with 10 campaigns and 365 days of rollup rows (2 devices a day each, through
// recordEvents as the serving engine writes them). The browser signs in once, then loads
// /advertiser with the last 365 days WEB_OVERVIEW_LOADS times (default 10; the first load, with
// an empty cache, is reported apart). A load is timed from the navigation's start (the page's
// time origin) to the first frame in which the chart's canvas holds drawn pixels.
import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import { type Database, openDatabase } from '../src/db/database.ts';
import { DEVICES, type TrafficEvent } from '../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../test/helpers/fixtures.ts';
import { Mailbox } from '../test/helpers/mailbox.ts';
import { startTestServer } from '../test/helpers/server.ts';
import { buildWebIfStale } from '../web/scripts/build-if-stale.ts';
import { withBenchDatabase } from './lib/database.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LOADS = Number(process.env.WEB_OVERVIEW_LOADS ?? 10);
const CAMPAIGNS = 10;
const DAYS = 365;
const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;

async function measure(database?: Database): Promise<void> {
  buildWebIfStale();
  const mailbox = new Mailbox();
  await mailbox.start();
  const server = await startTestServer({
    env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` },
    ...(database ? { database } : {}),
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const advertiser = await server.createAccount('advertiser');
    const me = (await advertiser.client.get('/api/me')).json<{ email: string; username: string }>();
    const invitation = await mailbox.next(me.email);
    const token = /password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });

    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    const site = await insertSite(db, { publisherId: publisher.id });
    const block = await insertBlock(db, { siteId: site.id });
    const now = Date.now();
    const events: TrafficEvent[] = [];
    for (let index = 0; index < CAMPAIGNS; index++) {
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id, title: `Campaign ${index + 1}` });
      const offer = await insertOffer(db, { campaignId: campaign.id });
      for (let day = 0; day < DAYS; day++) {
        for (const device of [DEVICES.desktop, DEVICES.mobile]) {
          events.push({
            at: now - day * DAY_MS,
            campaignId: campaign.id,
            offerId: offer.id,
            siteId: site.id,
            blockId: block.id,
            device,
            views: 2000 + ((day * 37 + index * 11) % 900),
            clicks: 20 + ((day * 13 + index) % 30),
            spendMicros: 4_000_000 + ((day * 7919) % 3_000_000),
            conversions: { 1: day % 3 },
          });
        }
      }
    }
    await recordTraffic(db, events);

    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(me.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    const today = new Date(now).toISOString().slice(0, 10);
    const from = new Date(now - (DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
    const url = `${server.url}/advertiser?from=${from}&to=${today}`;
    const timings: number[] = [];
    for (let load = 0; load < LOADS + 1; load++) {
      if (load === 0)
        await page
          .context()
          .newCDPSession(page)
          .then((cdp) => cdp.send('Network.clearBrowserCache'));
      timings.push(await chartDrawnAfterNavigation(page, url));
    }
    const [cold = 0, ...warm] = timings;
    const sorted = [...warm].sort((a, b) => a - b);
    const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    console.log(`advertiser overview, ${CAMPAIGNS} campaigns × ${DAYS} days (${events.length} rollup events), ${LOADS} loads`);
    console.log(`first load (empty cache): ${cold.toFixed(0)} ms`);
    console.log(
      `then: p50 ${quantile(0.5).toFixed(0)} ms, min ${sorted[0]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms (${warm.map((value) => value.toFixed(0)).join(', ')})`,
    );
    console.log(`budget p50 < 500 ms: ${quantile(0.5) < 500 ? 'met' : 'MISSED'}`);
    if (quantile(0.5) >= 500) process.exitCode = 1;
  } finally {
    await browser.close();
    await server.close();
    await mailbox.stop();
  }
}

/** Milliseconds from the start of the navigation to the first frame with the chart drawn. */
async function chartDrawnAfterNavigation(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    () => {
      const doc = (globalThis as unknown as { document: { querySelector(selector: string): unknown } }).document;
      const canvas = doc.querySelector('.chart canvas') as {
        width: number;
        height: number;
        getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
      } | null;
      if (canvas === null || canvas.width === 0) return false;
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let index = 3; index < pixels.length; index += 4) if (pixels[index] !== 0) return performance.now();
      return false;
    },
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return Number(await handle.jsonValue());
}

if (!existsSync(CHROMIUM)) {
  console.error(`no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
  process.exitCode = 2;
} else if (process.argv[2] === 'postgres') {
  await withBenchDatabase(async (databaseUrl) => {
    const database = await openDatabase({ databaseUrl, dataDir: '' });
    try {
      await measure(database);
    } finally {
      await database.close();
    }
  });
} else {
  await measure();
}
