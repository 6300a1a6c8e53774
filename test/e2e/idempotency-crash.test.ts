import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { createCrashDatabase, freePort, request, startChildServer } from '../helpers/child-server.ts';
import { assertEveryBalanceIsItsLedger } from '../helpers/serving.ts';

/**
 * A crash between the commit of a keyed balance move and its answer (docs/adr/0012): the server
 * runs as a child process with NATIVA_TEST_CRASH_AFTER_COMMIT, which SIGKILLs it right after a
 * request with an Idempotency-Key commits. The client sees the connection die; after a restart on
 * the same data, its retry with the same key gets the stored answer and the money moved once.
 */
describe('a keyed balance move survives a crash between commit and answer', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-idem-crash-'));
  let database: Awaited<ReturnType<typeof createCrashDatabase>>;
  const children: ChildProcess[] = [];
  const agent = new https.Agent({ rejectUnauthorized: false });

  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('the retry after the restart replays the answer and the money moved once', async () => {
    database = await createCrashDatabase('nativa_idem_crash');
    const port = await freePort();
    const base = `https://127.0.0.1:${port}`;
    const crashing = await startChildServer({
      dataDir,
      port,
      databaseUrl: database?.url,
      env: { NATIVA_TEST_CRASH_AFTER_COMMIT: '1' },
    });
    children.push(crashing);
    const exited = new Promise((resolve) => crashing.once('exit', resolve));
    const operator = { 'Auth-Token': readFileSync(path.join(dataDir, 'operator.token'), 'utf8').trim() };

    const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
      const response = await request(agent, method, `${base}${url}`, { headers, body });
      return { status: response.status, json: JSON.parse(response.body || 'null') };
    };
    const advertiser = await call('POST', '/api/admin/users', operator, {
      type: 'advertiser',
      username: 'crash_parent',
      email: 'crash_parent@example.test',
    });
    assert.equal(advertiser.status, 201);
    assert.equal(
      (await call('POST', `/api/admin/users/${advertiser.json.id}/balance`, operator, { amount: 100, comment: 'x' })).status,
      200,
    );
    const token = await call('POST', `/api/admin/users/${advertiser.json.id}/tokens`, operator, {});
    const parent = { 'Auth-Token': token.json.token as string };
    const client = await call('POST', '/api/advertiser/users', parent, {
      user: 'crash_client',
      email: 'crash_client@example.test',
    });
    assert.equal(client.status, 201);
    const clientId = client.json.id as number;

    const keyed = { ...parent, 'Idempotency-Key': 'crash-move-1' };
    await assert.rejects(
      request(agent, 'PUT', `${base}/api/advertiser/users/${clientId}`, { headers: keyed, body: { balance: 10 } }),
      'the connection dies: the server was killed after the commit, before the answer',
    );
    await exited;
    assert.equal(crashing.signalCode, 'SIGKILL');

    children.push(await startChildServer({ dataDir, port, databaseUrl: database?.url }));
    const retry = await request(agent, 'PUT', `${base}/api/advertiser/users/${clientId}`, {
      headers: keyed,
      body: { balance: 10 },
    });
    assert.equal(retry.status, 200, retry.body);
    assert.equal(JSON.parse(retry.body).balance, 10);
    const parentNow = await call('GET', `/api/admin/users/${advertiser.json.id}`, operator);
    assert.equal(parentNow.json.balance, 90, 'the money moved once');

    // The embedded database has one owner: read the ledger once the server is gone.
    const last = children[children.length - 1] as ChildProcess;
    const gone = new Promise((resolve) => last.once('exit', resolve));
    last.kill('SIGTERM');
    await gone;
    const data = await openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      const moves = await data.db
        .selectFrom('ledger_entries')
        .select('amount_micros')
        .where('account_id', '=', clientId)
        .where('kind', '=', 'client_transfer')
        .execute();
      assert.deepEqual(
        moves.map((row) => row.amount_micros),
        [10_000_000],
      );
      await assertEveryBalanceIsItsLedger(data.db);
    } finally {
      await data.close();
    }
  });
});
