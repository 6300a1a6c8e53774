import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliDataDir } from '../helpers/cli.ts';
import { insertCampaign, insertOffer } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const MAIN = path.join(import.meta.dirname, '../../src/cli/main.ts');

describe('operator CLI for the advertiser side', () => {
  let server: TestServer;
  let cliDir: string;
  before(async () => {
    server = await startTestServer();
    cliDir = cliDataDir(server);
  });
  after(async () => {
    await server.close();
    rmSync(cliDir, { recursive: true, force: true });
  });

  const nativa = async (...args: string[]) => {
    const env = { ...process.env, DATA_DIR: cliDir, NATIVA_URL: server.url, NATIVA_TOKEN: server.operator.defaultToken ?? '' };
    const { stdout } = await run(process.execPath, [MAIN, ...args], { env });
    return stdout;
  };

  it('lists categories, moderates campaigns and ads, and shows the outbox', async () => {
    const roots = JSON.parse(await nativa('categories', 'list', '--parent', '0', '--json'));
    assert.equal(roots.length, 12);
    assert.match(await nativa('categories', 'list', '--parent', '2'), /201\s+2\s+Smartphones/);

    const advertiser = await server.createAccount('advertiser');
    const db = server.server.context.db;
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, title: 'CLI campaign', approved: false });
    const offer = await insertOffer(db, { campaignId: campaign.id, approved: false });
    assert.match(await nativa('campaigns', 'queue'), /CLI campaign/);
    assert.deepEqual(JSON.parse(await nativa('campaigns', 'moderate', String(campaign.id), '--status', 'approved', '--json')), {
      id: campaign.id,
      status: 1,
    });
    assert.deepEqual(JSON.parse(await nativa('offers', 'moderate', String(offer.id), '--status', 'rejected', '--json')), {
      id: offer.id,
      status: 2,
    });
    const stored = await db.selectFrom('offers').select('moderation_status').where('id', '=', offer.id).executeTakeFirstOrThrow();
    assert.equal(stored.moderation_status, 2);
    await assert.rejects(nativa('campaigns', 'moderate', String(campaign.id), '--status', 'maybe'), /--status must be/);

    const client = await advertiser.client.post('/api/advertiser/users', { user: 'cli_client', email: 'cli@example.test' });
    assert.equal(client.status, 201);
    const outbox = await nativa('outbox', 'list');
    assert.match(outbox, /queued\s+0\s+cli@example\.test/);
  });
});
