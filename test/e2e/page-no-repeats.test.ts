import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../helpers/serving.ts';

const skip = skipWithoutChromium;

/** A publisher's page with two blocks, each pasted with its own embed code (so the loader runs twice). */
function startPage(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => site.close(() => done())) });
    });
  });
}

describe('one page without repeats in a real browser (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('two blocks of a page show no ad twice; a reload is a new page view', async () => {
    const world = await createWorld(server, {
      ads: [700, 600, 500, 400, 300].map((cents) => ({ bidMicros: cents * 1000 })),
      teaserCount: 3,
    });
    const second = await insertBlock(server.server.context.db, { siteId: world.siteId, teaserCount: 3 });
    await engineOf(server).refresh();
    const embed = (blockId: number) =>
      `<div data-nativa-block="${blockId}"></div><script async src="${server.url}/api/serve/loader.js"></script>`;
    const publisher = await startPage(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>News</title></head>
<body><h1>News</h1>${embed(world.blockId)}<p>Article text.</p>${embed(second.id)}</body></html>`);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
    try {
      const page = await context.newPage();
      const shownOnPage = async () => {
        for (const blockId of [world.blockId, second.id]) {
          await page.waitForSelector(`[data-nativa-block="${blockId}"][data-nativa-state="done"]`);
        }
        return page.$$eval('[data-nativa-block] li a', (links) => links.map((link) => link.getAttribute('href') ?? ''));
      };
      const titles = () => page.$$eval('[data-nativa-block] .nativa-title', (nodes) => nodes.map((node) => node.textContent));
      for (let view = 0; view < 2; view += 1) {
        if (view === 0) await page.goto(publisher.url);
        else await page.reload();
        const links = await shownOnPage();
        const shown = await titles();
        assert.equal(shown.length, 5, `view ${view}: five ads between the two blocks of three: ${shown.join(', ')}`);
        assert.equal(new Set(shown).size, shown.length, `view ${view}: no ad twice on the page: ${shown.join(', ')}`);
        assert.equal(new Set(links).size, links.length);
      }
    } finally {
      await context.close();
      await publisher.close();
    }
  });
});
