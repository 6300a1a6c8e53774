import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { emitWebhookEvent } from '../../src/modules/webhooks/emit.ts';
import { insertEndpoint, replaceSubscriptions } from '../../src/modules/webhooks/webhook-repository.ts';
import { createCrashDatabase, freePort, startChildServer, stopChild } from '../helpers/child-server.ts';
import { insertAccount } from '../helpers/fixtures.ts';
import { testTls } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * At-least-once delivery across a crash: the real server runs as a child process with events in
 * its outbox, and is killed with SIGKILL while the receiver holds requests unanswered. After a
 * restart on the same data every event reaches every endpoint it was meant for; the deliveries
 * that were in flight at the kill arrive again (the receiver deduplicates by event id, as
 * docs/webhooks.md tells receivers to), and none is missing.
 */
describe('webhooks survive kill -9 mid-delivery', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-webhooks-crash-'));
  let database: Awaited<ReturnType<typeof createCrashDatabase>>;
  const children: ChildProcess[] = [];
  let receiver: WebhookReceiver | undefined;

  const openData = (): Promise<Database> => openDatabase({ databaseUrl: database?.url, dataDir });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('every event reaches each endpoint at least once; deduplicated by id, exactly once', async () => {
    const tls = await testTls();
    receiver = await new WebhookReceiver(tls).start();
    const caFile = path.join(dataDir, 'receiver-ca.pem');
    writeFileSync(caFile, tls.cert);
    /** The requests the receiver holds unanswered, by endpoint path and event id. */
    const inFlight = new Set<string>();
    const keyOf = (hit: { path: string; event: { id: string } }) => `${hit.path} ${hit.event.id}`;
    // Every answer is held a while, so that the kill finds requests the server has sent and not recorded.
    receiver.answer = (webhook) => {
      const key = keyOf(webhook);
      inFlight.add(key);
      setTimeout(() => inFlight.delete(key), 150).unref();
      return { status: 200, body: 'ok', holdMs: 150 };
    };

    database = await createCrashDatabase('nativa_webhooks_crash');
    const seed = await openData();
    const EVENTS = 120;
    const endpointIds: number[] = [];
    try {
      await migrate(seed);
      const db = seed.db;
      const advertiser = await insertAccount(db, { kind: 'advertiser', username: 'hooked-advertiser' });
      const now = new Date();
      for (const suffix of ['a', 'b']) {
        const id = await insertEndpoint(
          db,
          advertiser.id,
          { url: `${receiver.url}/${suffix}`, description: '', active: true, balanceThresholdMicros: null },
          `whsec_${suffix}`,
          now,
        );
        await replaceSubscriptions(db, id, ['client.created']);
        endpointIds.push(id);
      }
      for (let index = 0; index < EVENTS; index += 1) {
        await db
          .transaction()
          .execute((trx) => emitWebhookEvent(trx, { type: 'client.created', accountId: advertiser.id, data: { index }, now }));
      }
    } finally {
      await seed.close();
    }

    const port = await freePort();
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: caFile, WEBHOOK_TIMEOUT_MS: '3000' };
    const first = await startChildServer({ dataDir, port, databaseUrl: database?.url, env });
    children.push(first);
    await waitFor('deliveries under way', () => receiver && receiver.received.length >= 40 && inFlight.size > 0, {
      timeoutMs: 60_000,
      intervalMs: 5,
    });
    const inFlightAtKill = [...inFlight];
    await stopChild(first, 'SIGKILL');
    const receivedBeforeKill = receiver.received.length;
    assert.ok(receivedBeforeKill < 2 * EVENTS, `the kill came mid-delivery (${receivedBeforeKill} of ${2 * EVENTS} received)`);

    // The restart takes up what was pending, and what was in flight once its lease (3 × 3 s) is over.
    const second = await startChildServer({ dataDir, port, databaseUrl: database?.url, env });
    children.push(second);
    const perEndpoint = (suffix: string) =>
      new Set(receiver?.received.filter((hit) => hit.path === `/${suffix}`).map((hit) => hit.event.id));
    // A request unanswered at the kill comes again only once its lease is over, which may be after
    // every other event has arrived: the wait is for both.
    const timesReceived = (key: string) => receiver?.received.filter((hit) => keyOf(hit) === key).length ?? 0;
    try {
      await waitFor(
        `every event at both endpoints, and the ${inFlightAtKill.length} unanswered at the kill again (${receivedBeforeKill} received before the kill)`,
        () =>
          perEndpoint('a').size === EVENTS &&
          perEndpoint('b').size === EVENTS &&
          inFlightAtKill.every((key) => timesReceived(key) >= 2),
        { timeoutMs: 90_000, intervalMs: 50 },
      );
    } catch (error) {
      // What the outbox says about the missing ones tells why.
      await stopChild(second, 'SIGKILL');
      const state = await openData();
      const failed = await state.db
        .selectFrom('webhook_attempts')
        .select(['error', 'latency_ms'])
        .where('error', '<>', '')
        .execute();
      const pending = await state.db.selectFrom('webhook_deliveries').selectAll().where('status', '<>', 'delivered').execute();
      await state.close();
      throw new Error(
        `${(error as Error).message}; failed attempts ${JSON.stringify(failed)}; undelivered ${JSON.stringify(pending)}`,
      );
    }
    await stopChild(second, 'SIGTERM');

    const duplicates = receiver.received.length - 2 * EVENTS;
    assert.ok(
      duplicates >= inFlightAtKill.length,
      `requests unanswered at the kill came again (${duplicates} ≥ ${inFlightAtKill.length})`,
    );
    const check = await openData();
    try {
      const rows = await check.db.selectFrom('webhook_deliveries').select(['status', 'endpoint_id']).execute();
      assert.equal(rows.length, 2 * EVENTS);
      // A re-sent delivery whose answer came too late on a loaded machine may still wait for its retry;
      // none has given up.
      assert.equal(rows.filter((row) => row.status === 'failed').length, 0);
    } finally {
      await check.close();
    }
  });
});
