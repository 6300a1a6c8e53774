import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { cleanEnv } from '../helpers/clean-env.ts';
import { cliDataDir } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const execFileAsync = promisify(execFile);
const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'nativa.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('nativa CLI against a running server', () => {
  let server: TestServer;
  let dataDir: string;
  let env: Record<string, string>;

  async function nativa(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  before(async () => {
    server = await startTestServer();
    dataDir = cliDataDir(server);
    env = cleanEnv({ DATA_DIR: dataDir, NATIVA_URL: server.url, NATIVA_TOKEN: server.operator.defaultToken ?? '' });
  });
  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, lists and shows accounts, for people and with --json', async () => {
    const created = await nativa([
      'users',
      'create',
      '--type',
      'advertiser',
      '--username',
      'cli_acme',
      '--email',
      'cli@acme.test',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const user = JSON.parse(created.stdout);
    assert.equal(user.username, 'cli_acme');
    assert.equal(user.type, 'advertiser');

    const shown = await nativa(['users', 'show', String(user.id)]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^username\s+cli_acme$/m);
    assert.match(shown.stdout, /^type\s+advertiser$/m);

    await nativa(['users', 'create', '--type', 'webmaster', '--username', 'cli_pub', '--email', 'pub@cli.test']);
    const listed = await nativa(['users', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...lines] = listed.stdout.trim().split('\n');
    assert.match(header ?? '', /^id\s+type\s+username\s+email\s+balance/);
    assert.ok(lines.some((line) => /\bcli_acme\b/.test(line)));
    assert.ok(lines.some((line) => /\bpublisher\s+cli_pub\b/.test(line)));
    const publishers = JSON.parse((await nativa(['users', 'list', '--type', 'publisher', '--json'])).stdout);
    assert.deepEqual(
      publishers.map((entry: { username: string }) => entry.username),
      ['cli_pub'],
    );
  });

  it('issues a token that works, lists it, revokes it', async () => {
    const account = await server.createAccount('advertiser');
    const issued = await nativa(['tokens', 'create', String(account.id), '--name', 'laptop']);
    assert.equal(issued.code, 0, issued.stderr);
    const [idLine, token] = issued.stdout.split('\n');
    const tokenId = Number(/^token id (\d+)$/.exec(idLine ?? '')?.[1]);
    assert.ok(tokenId > 0, issued.stdout);
    assert.equal((await server.anonymous.get('/api/me', { token })).json().id, account.id);

    const listed = JSON.parse((await nativa(['tokens', 'list', String(account.id), '--json'])).stdout);
    assert.ok(listed.some((entry: { id: number; name: string }) => entry.id === tokenId && entry.name === 'laptop'));

    const revoked = await nativa(['tokens', 'revoke', String(tokenId)]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, `token ${tokenId} revoked\n`);
    assert.equal((await server.anonymous.get('/api/me', { token })).status, 401);
    const again = await nativa(['tokens', 'revoke', String(tokenId)]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /404/);
  });

  it('credits and debits a balance; a debit below zero fails with the field named', async () => {
    const account = await server.createAccount('advertiser');
    const credit = await nativa(['balance', String(account.id), '125.5', '--comment', 'bank transfer', '--json']);
    assert.equal(credit.code, 0, credit.stderr);
    assert.equal(JSON.parse(credit.stdout).balance, 125.5);
    const debit = await nativa(['balance', String(account.id), '-25.5', '--comment', 'refund']);
    assert.match(debit.stdout, /^balance\s+100$/m);
    const overdraft = await nativa(['balance', String(account.id), '-1000', '--comment', 'too much']);
    assert.equal(overdraft.code, 1);
    assert.match(overdraft.stderr, /422.*\n\s+amount: /);
    assert.equal((await account.client.get('/api/me')).json().balance, 100);
  });

  it('reports usage errors with exit code 2', async () => {
    const missing = await nativa(['users', 'create', '--type', 'advertiser']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing --username/);
    assert.match(missing.stderr, /usage: nativa users create/);
    const unknown = await nativa(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    const noId = await nativa(['tokens', 'revoke']);
    assert.equal(noId.code, 2);
    const help = await nativa(['help']);
    assert.equal(help.code, 0);
    for (const command of ['serve', 'migrate', 'users create', 'tokens revoke', 'balance'])
      assert.ok(help.stdout.includes(command));
  });

  it('reads the token from DATA_DIR/operator.token when NATIVA_TOKEN is unset, and fails clearly without one', async () => {
    const noToken = await nativa(['users', 'list'], { NATIVA_TOKEN: '' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /no operator token/);
    writeFileSync(path.join(dataDir, 'operator.token'), `${server.operator.defaultToken}\n`, { mode: 0o600 });
    const fromFile = await nativa(['users', 'show', '1', '--json'], { NATIVA_TOKEN: '' });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(JSON.parse(fromFile.stdout).type, 'operator');
    const badToken = await nativa(['users', 'list'], { NATIVA_TOKEN: 'nv_wrong' });
    assert.equal(badToken.code, 1);
    assert.match(badToken.stderr, /401/);
  });

  it('migrate applies the migrations once, reports the database up to date, and refuses a changed one', async () => {
    const fresh = mkdtempSync(path.join(os.tmpdir(), 'nativa-cli-migrate-'));
    try {
      const first = await nativa(['migrate', '--json'], { DATA_DIR: fresh });
      assert.equal(first.code, 0, first.stderr);
      const applied: string[] = JSON.parse(first.stdout).applied;
      assert.ok(applied.includes('0001-foundation'), first.stdout);
      assert.deepEqual(applied, [...applied].sort());
      const second = await nativa(['migrate'], { DATA_DIR: fresh });
      assert.equal(second.stdout, 'database is up to date\n');
      // As if 0330's file had been edited since it was applied: the checksums no longer match.
      const database = await openDatabase({ databaseUrl: undefined, dataDir: fresh });
      await sql`UPDATE schema_migrations SET checksum = 'applied before an edit' WHERE version = '0330-change-counters'`.execute(
        database.db,
      );
      await database.close();
      const changed = await nativa(['migrate'], { DATA_DIR: fresh });
      assert.equal(changed.code, 2, changed.stderr);
      assert.match(changed.stderr, /^nativa: refusing to migrate: .*\(changed: 0330-change-counters\.sql\)\. /);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a server whose certificate it does not trust', async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'nativa-cli-untrusted-'));
    try {
      const result = await nativa(['users', 'list'], { DATA_DIR: elsewhere });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /certificate/i);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
