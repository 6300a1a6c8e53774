import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { insertCampaign, insertOffer } from '../helpers/fixtures.ts';
import type { TestClient, TestResponse } from '../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Inputs that once answered 500, and the conventions once broken beside them, one by one. */

let server: TestServer;
let advertiser: { id: number; client: TestClient };
let publisher: { id: number; client: TestClient };

describe('inputs that once answered 500', () => {
  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
  });

  after(async () => {
    await server.close();
  });

  function assertEnvelope(response: TestResponse, status: number): { message: string; errors?: { field: string }[] } {
    assert.equal(response.status, status, response.text);
    const body = response.json();
    assert.equal(body.status, status);
    assert.equal(typeof body.name, 'string');
    assert.equal(typeof body.message, 'string');
    assert.equal(typeof body.code, 'number');
    return body;
  }

  describe('ids, pages and numbers', () => {
    for (const id of ['Infinity', '-Infinity', 'NaN', '1e2', '2147483648', '99999999999999999999']) {
      it(`a path id of ${id} is 404`, async () => {
        assertEnvelope(await server.operator.get(`/api/admin/users/${id}`), 404);
      });
    }

    for (const page of ['1e99', '99999999999999999999', 'Infinity', '1000001', '0']) {
      it(`?page=${page} is 422 naming page`, async () => {
        const body = assertEnvelope(await server.operator.get(`/api/admin/users?page=${page}`), 422);
        assert.deepEqual(
          body.errors?.map((error) => error.field),
          ['page'],
        );
      });
    }

    for (const path of ['/api/admin/sites', '/api/admin/payouts', '/api/admin/outbox']) {
      it(`${path}?userId=2147483648 is 422 naming userId`, async () => {
        const body = assertEnvelope(await server.operator.get(`${path}?userId=2147483648`), 422);
        assert.deepEqual(
          body.errors?.map((error) => error.field),
          ['userId'],
        );
      });
    }

    for (const value of [2 ** 31, 2 ** 53 + 1, 1e99, '1e99', null]) {
      it(`a body category_id of ${JSON.stringify(value)} is 422 and creates nothing`, async () => {
        const response = await publisher.client.post('/api/webmaster/sites', {
          url: 'https://bounds.example.test',
          category_id: value,
        });
        const body = assertEnvelope(response, 422);
        assert.ok(
          body.errors?.some((error) => error.field === 'category_id'),
          response.text,
        );
        const sites = await publisher.client.get('/api/webmaster/sites');
        assert.equal(sites.json<unknown[]>().length, 0);
      });
    }

    it('null is never coerced to 0 (a moderation status)', async () => {
      const campaign = await insertCampaign(server.server.context.db, { advertiserId: advertiser.id, approved: true });
      const body = assertEnvelope(await server.operator.put(`/api/admin/campaigns/${campaign.id}`, { status: null }), 422);
      assert.deepEqual(
        body.errors?.map((error) => error.field),
        ['status'],
      );
      const stored = await server.server.context.db
        .selectFrom('campaigns')
        .select('moderation_status')
        .where('id', '=', campaign.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.moderation_status, 1);
    });

    it('payouts and categories refuse ids beyond int4 in the body', async () => {
      assertEnvelope(await server.operator.post('/api/admin/payouts', { userId: 2 ** 31, amount: 1, wallet: 'W' }), 422);
      assertEnvelope(await server.operator.post('/api/admin/categories', { title: 'Big', parentId: 1e99 }), 422);
    });
  });

  describe('texts', () => {
    for (const name of ['a\u0000b', 'x\uD800', '\uDC00']) {
      it(`a name of ${JSON.stringify(name)} is 422 and creates nothing`, async () => {
        const response = await server.operator.post('/api/admin/users', {
          type: 'advertiser',
          username: 'texttest',
          email: 'texttest@example.test',
          name,
        });
        const body = assertEnvelope(response, 422);
        assert.deepEqual(
          body.errors?.map((error) => error.field),
          ['name'],
        );
        const users = await server.operator.get('/api/admin/users?per-page=100');
        assert.ok(!users.json<{ username: string }[]>().some((user) => user.username === 'texttest'));
      });
    }

    it('a well-formed surrogate pair (an emoji) is a text like any other', async () => {
      const response = await server.operator.post('/api/admin/categories', { title: 'Gifts 🎁' });
      assert.equal(response.status, 201, response.text);
    });

    it('a conversion postback with a NUL click id is 422', async () => {
      assertEnvelope(await server.anonymous.get('/api/serve/conversion?click_id=%00&goal=purchase'), 422);
    });

    it('the conversion pixel answers a GIF even to a bad query', async () => {
      for (const query of ['click_id=%00&goal=purchase', 'click_id=x&goal=nothing', '']) {
        const response = await server.anonymous.get(`/api/serve/pixel.gif?${query}`);
        assert.equal(response.status, 200, query);
        assert.equal(response.header('content-type'), 'image/gif');
      }
    });
  });

  describe("Fastify's own errors", () => {
    it('a malformed percent-encoding in the path is a 400 envelope, in XML when asked', async () => {
      assertEnvelope(await server.operator.get('/api/admin/users/%E0%A4%A'), 400);
      const xml = await server.operator.get('/api/admin/users/%zz', { accept: 'application/xml' });
      assert.equal(xml.status, 400);
      assert.equal(xml.xml().status, '400');
    });

    it('a path parameter over the length limit is a 414 envelope', async () => {
      assertEnvelope(await server.operator.get(`/api/admin/users/${'9'.repeat(200)}`), 414);
    });

    it('a request Node cannot parse (an unknown method) gets the envelope on the raw socket', async () => {
      const url = new URL(server.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.tls.cert }, () => {
          socket.write('FROBNICATE /api/health HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n');
        });
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
        });
        socket.on('end', () => resolve(text));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      assert.equal(body.status, 400);
      assert.equal(body.name, 'Bad Request');
    });

    it('oversized headers get a 431 envelope', async () => {
      const response = await server.operator
        .get('/api/health', { headers: { 'X-Big': 'x'.repeat(20_000) } })
        .catch(() => undefined);
      // Node's client may see the connection closed before reading; when it reads, it is the envelope.
      if (response) assertEnvelope(response, 431);
    });
  });

  describe('pagination', () => {
    it('a list asked with an 8 KB query string gets small headers Node accepts', async () => {
      const response = await server.operator.get(
        `/api/admin/users?type=advertiser&junk=${'j'.repeat(8_000)}&fields=${'f'.repeat(100)}`,
      );
      assert.equal(response.status, 200);
      const link = response.header('link') ?? '';
      assert.ok(link.length < 1_500, `Link is ${link.length} characters`);
      assert.ok(!link.includes('junk') && !link.includes('fields'));
      assert.match(link, /\/api\/admin\/users\?type=advertiser&page=1&per-page=20>; rel=self/);
    });

    it('a declared filter too long to echo leaves the Link header out', async () => {
      const response = await server.operator.get(`/api/admin/payouts?status=${'p'.repeat(2_000)}`);
      assert.equal(response.status, 422);
    });

    it("the publisher's categories are paginated like the advertiser's", async () => {
      const response = await publisher.client.get('/api/webmaster/categories?per-page=1');
      assert.equal(response.status, 200);
      assert.equal(response.json<unknown[]>().length, 1);
      assert.equal(response.header('x-pagination-per-page'), '1');
      assert.ok(Number(response.header('x-pagination-total-count')) > 1);
    });
  });

  describe('fields and expand together', () => {
    it('keep the named fields and the expansion (Yii2)', async () => {
      const db = server.server.context.db;
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
      await insertOffer(db, { campaignId: campaign.id });
      const response = await advertiser.client.get(`/api/advertiser/campaigns/${campaign.id}?fields=id,title&expand=offers`);
      assert.equal(response.status, 200, response.text);
      const body = response.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body).sort(), ['id', 'offers', 'title']);
      assert.equal((body.offers as unknown[]).length, 1);
    });
  });
});
