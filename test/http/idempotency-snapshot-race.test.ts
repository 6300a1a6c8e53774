import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { manualClock } from '../../src/clock.ts';
import type { Database } from '../../src/db/database.ts';
import { registerIdempotency } from '../../src/http/idempotency.ts';
import { requestDb } from '../../src/http/request-write.ts';
import { ErrorBodySchema, ErrorCodeSchema } from '../../src/http/schemas.ts';
import { createAccount } from '../../src/modules/accounts/account-service.ts';
import { idempotencyStore } from '../../src/modules/idempotency/index.ts';
import type { IdempotencyStore } from '../../src/shared/idempotency-store.ts';
import { openTestDatabase } from '../helpers/database.ts';

/**
 * The keyed request's lock and its look-up of a stored answer are one statement, whose snapshot is
 * taken before the lock: an answer the lock's previous holder commits in between is not seen. The
 * attempt that then runs the handler finds the key's row when it stores its own answer, rolls back,
 * and the request is tried once more, which replays the stored answer. The moment cannot be timed
 * from outside, so the store here hides the answer from the first look-up, as that snapshot would.
 */
describe('Idempotency-Key: an answer stored between the look-up and the lock', () => {
  let database: Database;
  let app: FastifyInstance;
  let accountId: number;
  let hideNextAnswer = false;

  const racingStore: IdempotencyStore = {
    ...idempotencyStore,
    async lockAndFind(trx, account, key, notBefore) {
      const found = await idempotencyStore.lockAndFind(trx, account, key, notBefore);
      if (!hideNextAnswer) return found;
      hideNextAnswer = false;
      return { locked: found.locked };
    },
  };

  before(async () => {
    database = await openTestDatabase();
    const account = await database.db
      .transaction()
      .execute((trx) =>
        createAccount(
          trx,
          { kind: 'advertiser', username: `race_${process.pid}`, email: `race_${process.pid}@example.test` },
          new Date(),
        ),
      );
    accountId = account.id;
    app = Fastify();
    app.addSchema(ErrorCodeSchema);
    app.addSchema(ErrorBodySchema);
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (request) => {
      (request as unknown as { principal: { accountId: number } }).principal = { accountId };
    });
    registerIdempotency(app, { db: database.db, clock: manualClock(Date.now()), store: racingStore });
    app.post('/things', { config: { idempotent: true } }, async (request, reply) => {
      const inserted = await requestDb(request, database.db)
        .insertInto('audit_entries')
        .values({
          account_id: accountId,
          actor_kind: 'advertiser',
          remote_address: '127.0.0.1',
          request_id: String(request.id),
          action: 'test.thing',
          object_type: 'thing',
          object_id: 'new',
          created_at: new Date(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      reply.code(201).header('Location', `/things/${inserted.id}`);
      return { id: inserted.id };
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const things = async () =>
    (await database.db.selectFrom('audit_entries').select('id').where('action', '=', 'test.thing').execute()).length;

  it('replays the stored answer, and the attempt that ran again leaves nothing behind', async () => {
    const headers = { 'idempotency-key': 'race-1', 'content-type': 'application/json' };
    const first = await app.inject({ method: 'POST', url: '/things', headers, payload: '{}' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(await things(), 1);

    hideNextAnswer = true;
    const retry = await app.inject({ method: 'POST', url: '/things', headers, payload: '{}' });
    assert.equal(hideNextAnswer, false, 'the first look-up of the retry did not see the stored answer');
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.headers.location, first.headers.location);
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await things(), 1, 'the attempt that ran the handler again was rolled back');
  });
});
