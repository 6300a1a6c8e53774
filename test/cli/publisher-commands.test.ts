import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../src/cli/main.ts';
import { cliDataDir } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Runs `nativa ARGS --json` against the test server and returns its exit code and parsed output. */
async function nativa(args: string[]): Promise<{ code: number; output: any; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => {
    stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await runCli([...args, '--json']);
    return { code, output: stdout === '' ? undefined : JSON.parse(stdout), stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
}

describe('nativa CLI: sites, payouts, balances', () => {
  let server: TestServer;
  let dataDir: string;
  const saved = { ...process.env };

  before(async () => {
    server = await startTestServer();
    dataDir = cliDataDir(server);
    process.env.DATA_DIR = dataDir;
    process.env.NATIVA_URL = server.url;
    process.env.NATIVA_TOKEN = server.operator.defaultToken;
  });
  after(async () => {
    process.env = saved;
    rmSync(dataDir, { recursive: true, force: true });
    await server.close();
  });

  it('moderates sites and records payouts through the operator API', async () => {
    const publisher = await server.createAccount('publisher');
    const site = (await publisher.client.post('/api/webmaster/sites', { url: 'https://cli.example.com', category_id: 2 })).json();

    const queue = await nativa(['sites', 'list', '--status', 'moderation', '--user', String(publisher.id)]);
    assert.equal(queue.code, 0, queue.stderr);
    assert.deepEqual(
      queue.output.map((row: { id: number }) => row.id),
      [site.id],
    );
    const moderated = await nativa(['sites', 'moderate', String(site.id), '--status', 'active']);
    assert.equal(moderated.code, 0, moderated.stderr);
    assert.equal(moderated.output.status, 'active');
    assert.equal((await nativa(['sites', 'moderate', String(site.id), '--status', 'gone'])).code, 2);

    await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount: 25, comment: 'revenue' });
    const payout = await nativa([
      'payouts',
      'create',
      '--user',
      String(publisher.id),
      '--amount',
      '20.5',
      '--wallet',
      'paypal:x',
    ]);
    assert.equal(payout.code, 0, payout.stderr);
    assert.deepEqual([payout.output.amount, payout.output.status, payout.output.userId], [20.5, 'pending', publisher.id]);

    const tooMuch = await nativa(['payouts', 'create', '--user', String(publisher.id), '--amount', '5', '--wallet', 'paypal:x']);
    assert.equal(tooMuch.code, 1);
    assert.match(tooMuch.stderr, /amount/);

    const listed = await nativa(['payouts', 'list', '--user', String(publisher.id)]);
    assert.deepEqual(
      listed.output.map((row: { id: number }) => row.id),
      [payout.output.id],
    );
    const paid = await nativa(['payouts', 'set', String(payout.output.id), '--status', 'paid']);
    assert.equal(paid.output.status, 'paid');

    const balances = await nativa(['balances']);
    assert.equal(balances.code, 0, balances.stderr);
    const mine = balances.output.find((row: { userId: number }) => row.userId === publisher.id);
    assert.deepEqual([mine.balance, mine.pending], [4.5, 0]);
  });
});
