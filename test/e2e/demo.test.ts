import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/db/database.ts';
import { freePort } from '../helpers/network.ts';

const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..', '..');

describe('nativa demo', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-demo-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates accounts, ads with images and blocks, and drives visitors through the real endpoints', async () => {
    const [port, pagePort] = [await freePort(), await freePort()];
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(ROOT, 'src/cli/main.ts'), 'demo', '--visitors', '60', '--page-port', String(pagePort), '--exit'],
      { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '' }, timeout: 120_000 },
    );
    assert.match(stderr, /\[#{30}\] 60\/60 visitors/);
    const summary = /(\d+) visitors, (\d+) clicks, (\d+) conversions/.exec(stdout);
    assert.ok(summary, stdout);
    assert.match(stdout, /advertiser {2}id \d+ {2}token nv_\S+/);
    assert.match(stdout, /publisher {3}id \d+ {2}token nv_\S+/);
    const originals = readdirSync(path.join(dataDir, 'images'), { recursive: true }).filter((file) =>
      String(file).endsWith('original'),
    );
    assert.equal(originals.length, 16, 'a square and a wide image per ad, stored by the images module');

    const database = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      const stats = await database.db
        .selectFrom('stats_daily')
        .select((eb) => [eb.fn.sum<number>('views').as('views'), eb.fn.sum<number>('clicks').as('clicks')])
        .executeTakeFirstOrThrow();
      assert.ok(Number(stats.views) >= 60, 'every visitor saw teasers');
      assert.equal(Number(stats.clicks), Number(summary[2]), 'every click of the demo was billed');
      const offers = await database.db.selectFrom('offers').select(['image_square', 'image_wide']).execute();
      assert.ok(offers.every((offer) => offer.image_square !== null && offer.image_wide !== null));
    } finally {
      await database.close();
    }
  });
});
