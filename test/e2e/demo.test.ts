import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { freePort } from '../helpers/network.ts';
import { DESKTOP_UA } from '../helpers/serving.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9';

function get(url: string, ca: string, accept = BROWSER_ACCEPT): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers: { 'User-Agent': DESKTOP_UA, Accept: accept } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      })
      .on('error', reject);
  });
}

describe('nativa demo', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-demo-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates accounts, ads and blocks, drives visitors through the real endpoints, and serves its page on the API origin', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(ROOT, 'src/cli/main.ts'), 'demo', '--visitors', '60'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', CURRENCY: 'EUR' },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
        if (stdout.includes('The server keeps running')) resolve();
      });
      exited.then((code) => reject(new Error(`demo exited with ${code}: ${stderr}`)));
    });
    let summary: RegExpExecArray | null;
    try {
      assert.match(stderr, /\[#{30}\] 60\/60 visitors/);
      summary = /(\d+) visitors, (\d+) clicks, (\d+) conversions/.exec(stdout);
      assert.ok(summary, stdout);
      assert.match(stdout, /advertiser {2}id \d+ {2}token nv_\S+/);
      assert.match(stdout, /publisher {3}id \d+ {2}token nv_\S+/);
      const origin = `https://localhost:${port}`;
      assert.match(stdout, new RegExp(`Teasers in a browser: ${origin}/demo/ `));

      // One origin for the page, the embed script and the teasers: one certificate to accept.
      const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
      const page = await get(`${origin}/demo/`, ca);
      assert.equal(page.status, 200);
      assert.match(page.type, /^text\/html/);
      const blocks = [...page.body.matchAll(/data-nativa-block="(\d+)"/g)].map((match) => match[1]);
      assert.equal(blocks.length, 2);
      assert.match(page.body, /<script async src="\/api\/serve\/loader\.js"><\/script>/);
      const teasers = JSON.parse((await get(`${origin}/api/serve/blocks/${blocks[0]}/teasers`, ca, 'application/json')).body);
      assert.equal(teasers.currency, 'EUR');
      assert.equal(teasers.teasers[0].domain, 'localhost');
      const shop = await get(`${origin}/demo/shop/1?click_id=abc`, ca);
      assert.match(shop.body, /<img src="\/api\/serve\/pixel\.gif\?click_id=abc&amp;goal=purchase"/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const originals = readdirSync(path.join(dataDir, 'images'), { recursive: true }).filter((file) =>
      String(file).endsWith('original'),
    );
    assert.equal(originals.length, 16, 'a square and a wide image per ad, stored by the images module');

    const database = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      const stats = await database.db
        .selectFrom('stats_daily')
        .select((eb) => [
          eb.fn.sum<number>('served').as('served'),
          eb.fn.sum<number>('views').as('views'),
          eb.fn.sum<number>('clicks').as('clicks'),
        ])
        .executeTakeFirstOrThrow();
      assert.ok(Number(stats.served) >= 60, 'every visitor was served teasers');
      assert.ok(Number(stats.views) > 0, "the visitors' beacons counted views");
      assert.ok(Number(stats.views) <= Number(stats.served), 'never more views than teasers served');
      assert.equal(Number(stats.clicks), Number(summary[2]), 'every click of the demo was billed');
      const offers = await database.db.selectFrom('offers').select(['image_square', 'image_wide']).execute();
      assert.ok(offers.every((offer) => offer.image_square !== null && offer.image_wide !== null));
    } finally {
      await database.close();
    }
  });
});
