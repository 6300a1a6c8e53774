import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { blockHeight, DEFAULT_DESIGN } from '../../src/modules/publisher/blocks/block-design.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../helpers/serving.ts';

const skip = skipWithoutChromium;

interface Block {
  bn: string;
  count: number;
  design?: Record<string, unknown>;
}

/** A publisher's page holding the block's embed code as the API gives it, with text below it. */
function startPage(embed: string): Promise<{ url: string; close(): Promise<void> }> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>News</title></head>
<body style="margin:0;width:900px"><h1>Today</h1>${embed}<p id="below">The article goes on.</p></body></html>`;
  const site = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => site.close(() => done())) });
    });
  });
}

/** Block design (docs/publisher.md, Block design): stored on the block, applied by the embed script, no layout shift. */
describe('block design: stored on the block, applied by the embed script', { skip }, () => {
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

  it('sets, merges and clears a design; refuses a bad one; the grid sets the count', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 4 });
    const path = `/api/webmaster/blocks/${world.blockId}`;
    const set = await world.publisher.put(path, { design: { columns: 3, rows: 2, textColor: '#112233' } });
    assert.equal(set.status, 200, set.text);
    const block = set.json<Block>();
    assert.deepEqual(block.design, { ...DEFAULT_DESIGN, columns: 3, rows: 2, textColor: '#112233' });
    assert.equal(block.count, 6);
    assert.match(block.bn, new RegExp(`style="min-height:${blockHeight({ ...DEFAULT_DESIGN, rows: 2 })}px"`));
    const merged = (await world.publisher.put(path, { design: { imageShape: 'wide', heading: 'You may like' } })).json<Block>();
    assert.deepEqual(
      [merged.design?.columns, merged.design?.imageShape, merged.design?.heading, merged.design?.textColor],
      [3, 'wide', 'You may like', '#112233'],
    );
    for (const design of [{ columns: 7 }, { textColor: 'red' }, { font: 'comic' }, { heading: '<b>' }, { size: 3 }]) {
      const refused = await world.publisher.put(path, { design });
      assert.equal(refused.status, 422, `${JSON.stringify(design)}: ${refused.text}`);
    }
    const stranger = await server.createAccount('publisher');
    assert.equal((await stranger.client.put(path, { design: { rows: 1 } })).status, 404);
    const cleared = (await world.publisher.put(path, { design: null })).json<Block>();
    assert.equal(cleared.design, undefined);
    assert.doesNotMatch(cleared.bn, /min-height/);
  });

  it('collapses a block with nothing to show: no blank gap where its height was reserved', async () => {
    // A site with no eligible ad, and a block id the server does not know (its answer is 404).
    const world = await createWorld(server, { ads: [] });
    const changed = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { design: { rows: 2 } });
    assert.equal(changed.status, 200, changed.text);
    const embed = changed.json<Block>().bn;
    assert.match(embed, /min-height:\d+px/);
    const unknown = embed.replace(`data-nativa-block="${world.blockId}"`, 'data-nativa-block="2000000000"');
    const page = await startPage(embed + unknown);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
    try {
      const tab = await context.newPage();
      await tab.goto(page.url);
      const blocks = tab.locator('[data-nativa-block]');
      await tab.locator('[data-nativa-state="done"]').nth(1).waitFor({ state: 'attached' });
      const boxes = await blocks.evaluateAll((nodes) =>
        nodes.map((node) => ({ height: node.getBoundingClientRect().height, children: node.childElementCount })),
      );
      assert.deepEqual(boxes, [
        { height: 0, children: 0 },
        { height: 0, children: 0 },
      ]);
      const [headingBottom, belowTop] = await Promise.all([
        tab.locator('h1').evaluate((node) => node.getBoundingClientRect().bottom),
        tab.locator('#below').evaluate((node) => node.getBoundingClientRect().top),
      ]);
      // Only the margins of the heading and the paragraph lie between them (they collapse into one).
      assert.ok(belowTop - headingBottom < 30, `the text follows the heading: ${headingBottom} → ${belowTop}`);
    } finally {
      await context.close();
      await page.close();
    }
  });

  it('lays the teasers out in the block’s reserved height: nothing below it moves', async () => {
    const world = await createWorld(server, {
      ads: [600, 500, 400, 300, 200, 100].map((cents) => ({ bidMicros: cents * 1000 })),
      teaserCount: 4,
    });
    // Pictures (their files need not exist: the tiles' heights do not depend on them).
    await server.server.context.db
      .updateTable('offers')
      .set({ image_square: 'missing' })
      .where('id', 'in', world.offerIds)
      .execute();
    const design = {
      columns: 3,
      rows: 2,
      heading: 'Sponsored stories',
      background: '#fafafa',
      adMark: 'top-right',
      titleSize: 15,
    };
    const changed = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { design });
    assert.equal(changed.status, 200, changed.text);
    await engineOf(server).refresh();
    const page = await startPage(changed.json<Block>().bn);
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      userAgent: DESKTOP_UA,
      viewport: { width: 900, height: 900 },
    });
    try {
      const tab = await context.newPage();
      await tab.addInitScript(() => {
        const shifts: number[] = [];
        (globalThis as unknown as { shifts: number[] }).shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
        }).observe({ type: 'layout-shift', buffered: true } as never);
      });
      await tab.goto(page.url);
      const reservedTop = await tab.locator('#below').evaluate((node) => node.getBoundingClientRect().top);
      await tab.locator('[data-nativa-state="done"]').waitFor();
      const teasers = tab.locator('.nativa-teaser');
      assert.equal(await teasers.count(), 6);
      assert.equal(await tab.locator('.nativa-heading').textContent(), 'Sponsored stories');
      const after = await tab.locator('#below').evaluate((node) => node.getBoundingClientRect().top);
      assert.equal(after, reservedTop, 'the text below the block did not move');
      const shifts = await tab.evaluate(() => (globalThis as unknown as { shifts: number[] }).shifts);
      assert.deepEqual(shifts, [], 'no layout shift');
      // Three columns: the first three tiles share a row, the fourth starts the next.
      const tops = await teasers.evaluateAll((nodes) => nodes.map((node) => Math.round(node.getBoundingClientRect().top)));
      assert.equal(new Set(tops.slice(0, 3)).size, 1);
      assert.ok((tops[3] ?? 0) > (tops[0] ?? 0));
      const mark = await tab
        .locator('.nativa-ad-mark')
        .first()
        .evaluate(
          (node) =>
            (
              node.ownerDocument.defaultView as unknown as { getComputedStyle(n: unknown): { position: string } }
            ).getComputedStyle(node).position,
        );
      assert.equal(mark, 'absolute', 'the Ad mark sits on the picture’s corner');
    } finally {
      await context.close();
      await page.close();
    }
  });
});
