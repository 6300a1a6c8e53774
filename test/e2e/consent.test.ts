import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { TEST_VENDOR_ID, tcString } from '../helpers/consent-strings.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, type World } from '../helpers/serving.ts';

const skip = skipWithoutChromium;

/**
 * Serves the pages of the test, `/publisher` and `/advertiser`, over HTTPS on the server's host:
 * the same site as the server (ports do not make sites), so the browser's blocking of third-party
 * cookies does not hide Nativa's cookie and the consent decision is what the test sees.
 */
function startSite(
  tls: { cert: string; key: string },
  pages: Record<string, string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const site = https.createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(pages[request.url ?? ''] ?? '');
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ url: `https://127.0.0.1:${port}`, close: () => new Promise((done) => site.close(() => done())) });
    });
  });
}

/**
 * A page-level stub CMP: `__tcfapi` answers addEventListener with a fixed TC string (built with
 * the IAB encoder) and the purposes it grants, as a CMP's tcData does; or never answers.
 */
function stubCmp(cmp: { tcString: string; purposes: number[] } | 'silent'): string {
  if (cmp === 'silent') return '<script>window.__tcfapi = function () {};</script>';
  const consents = Object.fromEntries(cmp.purposes.map((purpose) => [purpose, true]));
  const tcData = {
    tcString: cmp.tcString,
    gdprApplies: true,
    eventStatus: 'tcloaded',
    cmpStatus: 'loaded',
    listenerId: 1,
    purpose: { consents },
    vendor: { consents: { [TEST_VENDOR_ID]: true } },
  };
  return `<script>window.__tcfapi = function (command, version, callback) {
    if (command === 'addEventListener') setTimeout(function () { callback(${JSON.stringify(tcData)}, true); }, 30);
    else if (command === 'removeEventListener') callback(true);
  };</script>`;
}

// Real Chromium, one browser, a fresh context per case: the loader with a stub CMP on the page.
describe('consent in a real browser (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let world: World;
  let retargetingTitle: string;
  before(async () => {
    server = await startTestServer({ config: { tcfVendorId: TEST_VENDOR_ID } });
    browser = await launchChromium();
    world = await createWorld(server, { ads: [{ bidMicros: 100_000 }, { bidMicros: 200_000 }], teaserCount: 4 });
    const db = server.server.context.db;
    const retargeting = world.campaignIds[0] ?? 0;
    await db.updateTable('campaigns').set({ is_retarget: true }).where('id', '=', retargeting).execute();
    retargetingTitle = `Ad ${retargeting}`;
    await engineOf(server).refresh();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function visit(cmp: { tcString: string; purposes: number[] } | 'silent', options: { gpc?: boolean } = {}) {
    const consentQuery = cmp === 'silent' ? 'gdpr=1' : `gdpr=1&gdpr_consent=${encodeURIComponent(cmp.tcString)}`;
    const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page</title>${stubCmp(cmp)}</head>`;
    const site = await startSite(server.tls, {
      // The advertiser's own page with its retargeting pixel and the IAB consent macros filled in.
      '/advertiser': `${head}<body><img alt="" src="${server.url}/api/serve/audience.gif?advertiser=${world.advertiserId}&${consentQuery}"></body></html>`,
      '/publisher': `${head}<body><h1>News</h1><div data-nativa-block="${world.blockId}"></div><script async src="${server.url}/api/serve/loader.js"></script></body></html>`,
    });
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      userAgent: DESKTOP_UA,
      ...(options.gpc ? { extraHTTPHeaders: { 'Sec-GPC': '1' } } : {}),
    });
    try {
      if (options.gpc) {
        await context.addInitScript(() => {
          Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true });
        });
      }
      const page = await context.newPage();
      await page.goto(`${site.url}/advertiser`, { waitUntil: 'load' });
      const requests: string[] = [];
      let answer: { personalised: boolean } | undefined;
      page.on('request', (request) => {
        if (request.url().includes('/teasers')) requests.push(request.url());
      });
      page.on('response', async (response) => {
        if (response.url().includes('/teasers')) answer = await response.json();
      });
      await page.goto(`${site.url}/publisher`);
      await page.waitForSelector(`[data-nativa-block="${world.blockId}"][data-nativa-state="done"]`);
      const titles = await page.$$eval('.nativa-title', (nodes) => nodes.map((node) => node.textContent ?? ''));
      const storedId = await page.evaluate(() => localStorage.getItem('nativa_vid'));
      const cookies = (await context.cookies(`${server.url}/api/serve/`)).filter((cookie) => cookie.name === 'nv_vid');
      return { titles, storedId, cookies, request: new URL(requests[0] ?? 'about:blank'), answer };
    } finally {
      await context.close();
      await site.close();
    }
  }

  it('consent given: the visitor id is stored and sent, the audience cookie set and retargeting used', async () => {
    const seen = await visit({ tcString: tcString([1, 3, 4]), purposes: [1, 3, 4] });
    assert.match(seen.storedId ?? '', /^[0-9a-f]{32}$/);
    assert.equal(seen.request.searchParams.get('visitor'), seen.storedId);
    assert.equal(seen.request.searchParams.get('gdpr'), '1');
    assert.equal(seen.request.searchParams.get('gdpr_consent'), tcString([1, 3, 4]));
    assert.equal(seen.cookies.length, 1, 'the pixel set the audience cookie');
    assert.equal(seen.answer?.personalised, true);
    assert.ok(seen.titles.includes(retargetingTitle), `the retargeting ad shows: ${seen.titles.join(', ')}`);
  });

  it('consent refused: nothing in localStorage, no audience cookie, teasers still served', async () => {
    const seen = await visit({ tcString: tcString([1]), purposes: [1] });
    assert.equal(seen.storedId, null);
    assert.equal(seen.request.searchParams.get('visitor'), null);
    assert.equal(seen.cookies.length, 0);
    assert.equal(seen.answer?.personalised, false);
    assert.ok(seen.titles.length > 0, 'contextual teasers are served');
    assert.ok(!seen.titles.includes(retargetingTitle));
  });

  it('Global Privacy Control on: the same as refused, whatever the CMP says', async () => {
    const seen = await visit({ tcString: tcString([1, 3, 4]), purposes: [1, 3, 4] }, { gpc: true });
    assert.equal(seen.storedId, null);
    assert.equal(seen.request.searchParams.get('gpc'), '1');
    assert.equal(seen.cookies.length, 0);
    assert.equal(seen.answer?.personalised, false);
    assert.ok(seen.titles.length > 0 && !seen.titles.includes(retargetingTitle));
  });

  it('a CMP that never answers: served after the bound, unpersonalised', async () => {
    const seen = await visit('silent');
    assert.equal(seen.storedId, null);
    assert.equal(seen.request.searchParams.get('gdpr'), '1');
    assert.equal(seen.request.searchParams.get('gdpr_consent'), null);
    assert.equal(seen.answer?.personalised, false);
    assert.ok(seen.titles.length > 0 && !seen.titles.includes(retargetingTitle));
  });
});
