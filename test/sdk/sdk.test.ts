import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  currentDocument,
  ERROR_CODES_PATH,
  errorCodesOf,
  FIELD_LIMITS_PATH,
  fieldLimitsOf,
  SCHEMA_PATH,
  typesOf,
} from '../../sdk/scripts/openapi-document.ts';
import { ApiError, createNativaClient, data, ERROR_CODES, pages } from '../../sdk/src/index.ts';
import { httpsFetch } from '../../src/cli/https-fetch.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('the typed SDK', () => {
  it('has types that match the OpenAPI document the current code serves (run `npm run sdk:generate`)', async () => {
    const document = await currentDocument(await openTestDatabase());
    const expected = await typesOf(document);
    const committed = readFileSync(SCHEMA_PATH, 'utf8');
    assert.ok(committed === expected, 'sdk/src/schema.d.ts is stale: run `npm run sdk:generate` and commit it');
    const codes = readFileSync(ERROR_CODES_PATH, 'utf8');
    assert.ok(codes === errorCodesOf(document), 'sdk/src/error-codes.ts is stale: run `npm run sdk:generate` and commit it');
    const limits = readFileSync(FIELD_LIMITS_PATH, 'utf8');
    assert.ok(limits === fieldLimitsOf(document), 'sdk/src/field-limits.ts is stale: run `npm run sdk:generate` and commit it');
  });

  describe('against the real server', () => {
    let server: TestServer;
    let transport: ReturnType<typeof httpsFetch>;
    before(async () => {
      server = await startTestServer();
      transport = httpsFetch(server.tls.cert);
    });
    after(async () => {
      transport.close();
      await server.close();
    });

    it('makes typed calls with a token and throws the error envelope with its field errors', async () => {
      const advertiser = await server.createAccount('advertiser');
      const client = createNativaClient({ baseUrl: server.url, token: advertiser.token, fetch: transport.fetch });
      const me = await data(client.GET('/api/me'));
      assert.equal(me.id, advertiser.id);
      assert.equal(me.type, 'advertiser');

      const refused = await client.POST('/api/advertiser/campaigns', { body: { title: '', category_id: 2 } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof ApiError);
      assert.equal(refused.status, 422);
      assert.equal(refused.code, ERROR_CODES.validation_failed);
      assert.equal(refused.envelope.name, 'Data Validation Failed');
      assert.ok(refused.fieldError('title'), refused.message);

      const anonymous = createNativaClient({ baseUrl: server.url, fetch: transport.fetch });
      const unauthorized = await anonymous.GET('/api/me').catch((error: unknown) => error);
      assert.ok(unauthorized instanceof ApiError);
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.code, ERROR_CODES.unauthenticated);
    });

    it('iterates every page of a list over the X-Pagination headers', async () => {
      const advertiser = await server.createAccount('advertiser');
      const client = createNativaClient({ baseUrl: server.url, token: advertiser.token, fetch: transport.fetch });
      for (let index = 1; index <= 5; index++) {
        await client.POST('/api/advertiser/campaigns', { body: { title: `Campaign ${index}`, category_id: 2 } });
      }
      const seen: number[] = [];
      const requested: number[] = [];
      for await (const campaign of pages((page) => {
        requested.push(page);
        return client.GET('/api/advertiser/campaigns', { params: { query: { page, 'per-page': 2 } } });
      })) {
        seen.push(campaign.id);
      }
      assert.equal(seen.length, 5);
      assert.equal(new Set(seen).size, 5);
      assert.deepEqual(requested, [1, 2, 3]);
    });
  });

  describe('over the rate limit', () => {
    let server: TestServer;
    let transport: ReturnType<typeof httpsFetch>;
    before(async () => {
      server = await startTestServer({ config: { rateLimitPerSecond: 2 } });
      transport = httpsFetch(server.tls.cert);
    });
    after(async () => {
      transport.close();
      await server.close();
    });

    it('waits out a 429 as Retry-After says, a bounded number of times', async () => {
      const advertiser = await server.createAccount('advertiser');
      const waits: number[] = [];
      // Waiting moves the server's clock: the next window opens without a real sleep.
      const sleep = async (milliseconds: number) => {
        waits.push(milliseconds);
        server.clock.advance(milliseconds);
      };
      const client = createNativaClient({ baseUrl: server.url, token: advertiser.token, fetch: transport.fetch, sleep });
      const ids: number[] = [];
      for (let call = 0; call < 5; call++) ids.push((await data(client.GET('/api/me'))).id);
      assert.deepEqual(ids, [advertiser.id, advertiser.id, advertiser.id, advertiser.id, advertiser.id]);
      // Sliding windows (ADR 0004): after two calls at the start of a second, the third fits 1.5 s
      // later, and Retry-After rounds that up to whole seconds.
      assert.deepEqual(waits, [2000, 2000], 'two calls over the limit of 2 per second, Retry-After 2 s each');

      const impatient = createNativaClient({
        baseUrl: server.url,
        token: advertiser.token,
        fetch: transport.fetch,
        sleep: async () => undefined,
        maxRetries: 1,
      });
      const refused = await Promise.all(
        [1, 2, 3, 4].map(() =>
          impatient.GET('/api/me').then(
            () => 200,
            (error: ApiError) => error.status,
          ),
        ),
      );
      assert.ok(refused.includes(429), `past its retries a 429 is thrown: ${refused}`);
    });

    it('sends a POST or PUT again with its Idempotency-Key when the answer is lost: done once', async () => {
      const advertiser = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 10, comment: 'test' });
      const keys: string[] = [];
      let dropped = 0;
      // The first answer is lost after the server has done the work, as a connection reset would lose it.
      const flaky = async (request: Request): Promise<Response> => {
        keys.push(request.headers.get('Idempotency-Key') ?? '');
        const response = await transport.fetch(request);
        if (dropped === 0 && request.method !== 'GET') {
          dropped += 1;
          await response.body?.cancel();
          throw new TypeError('fetch failed: socket hang up');
        }
        return response;
      };
      // Waiting moves the server's clock (this server's rate limit is 2 a second).
      const sleep = async (milliseconds: number) => server.clock.advance(milliseconds);
      const client = createNativaClient({ baseUrl: server.url, token: advertiser.token, fetch: flaky, sleep });
      const created = await client.POST('/api/advertiser/campaigns', { body: { title: 'Sent twice', category_id: 2 } });
      assert.equal(created.response.status, 201);
      assert.equal(created.response.headers.get('Idempotent-Replayed'), 'true', 'the second send was answered from the store');
      assert.equal(keys.length, 2);
      assert.ok(keys[0] !== '' && keys[0] === keys[1], 'both sends carried the same key');
      const campaigns = await data(client.GET('/api/advertiser/campaigns'));
      assert.equal(campaigns.filter((campaign) => campaign.title === 'Sent twice').length, 1, 'created once');
    });
  });
});
