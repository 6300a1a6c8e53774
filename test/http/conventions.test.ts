import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, bodyOf, FORMATS, failingFields } from '../helpers/assertions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BODY_LIMIT = 64 * 1024;

describe('HTTP conventions', () => {
  let server: TestServer;
  let advertiser: Awaited<ReturnType<TestServer['createAccount']>>;
  before(async () => {
    server = await startTestServer({ config: { bodyLimitBytes: BODY_LIMIT } });
    advertiser = await server.createAccount('advertiser');
  });
  after(() => server.close());

  describe('response format negotiation', () => {
    const cases: [string | undefined, 'json' | 'xml'][] = [
      [undefined, 'json'],
      ['*/*', 'json'],
      ['application/json', 'json'],
      ['application/json; version=1', 'json'],
      ['application/json; version=1.0', 'json'],
      ['application/xml', 'xml'],
      ['application/xml; version=1', 'xml'],
      ['application/xml; version="1.0"', 'xml'],
      ['text/html, application/xml;q=0.9, */*;q=0.1', 'xml'],
      ['application/json;q=0.5, application/xml', 'xml'],
    ];
    for (const [accept, format] of cases) {
      it(`Accept: ${accept ?? '(none)'} → ${format}`, async () => {
        const response = await advertiser.client.get('/api/me', accept === undefined ? {} : { accept });
        assert.equal(response.status, 200);
        if (format === 'json') {
          assert.match(response.header('content-type') ?? '', /^application\/json/);
          assert.equal(response.json().id, advertiser.id);
        } else {
          assert.equal(response.header('content-type'), 'application/xml; charset=UTF-8');
          assert.match(response.text, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<response>/);
          assert.equal(response.xml().id, String(advertiser.id));
          assert.equal(response.xml().emailConfirmed, 'true');
          assert.equal(response.xml().parentId, '');
        }
      });
    }

    for (const accept of ['application/json; version=2', 'application/xml; version=0.9', 'text/html', 'image/png, text/plain']) {
      it(`Accept: ${accept} → 415`, async () => {
        const response = await advertiser.client.get('/api/me', { accept });
        const body = assertError(response, 415, 'json');
        assert.match(body.message, accept.includes('version') ? /version/ : /Use one of: application\/json, application\/xml/);
      });
    }
  });

  describe('errors in both formats', () => {
    for (const { name, accept } of FORMATS) {
      it(`${name}: 400 for a body that is not valid JSON`, async () => {
        for (const raw of ['{"type": "advertiser",', '[1,2]', '"text"']) {
          const response = await server.operator.post('/api/admin/users', undefined, { accept, raw });
          assertError(response, 400, name);
        }
      });

      it(`${name}: 401 for a missing, unknown or revoked token`, async () => {
        const missing = await server.anonymous.get('/api/me', { accept });
        assert.match(assertError(missing, 401, name).message, /Auth-Token/);
        assertError(await server.anonymous.get('/api/me', { accept, token: 'nv_unknown' }), 401, name);
        const issued = (await server.operator.post(`/api/admin/users/${advertiser.id}/tokens`, { name: 'short-lived' })).json();
        assert.equal((await server.anonymous.get('/api/me', { token: issued.token })).status, 200);
        assert.equal((await server.operator.delete(`/api/admin/tokens/${issued.id}`)).status, 204);
        assertError(await server.anonymous.get('/api/me', { accept, token: issued.token }), 401, name);
      });

      it(`${name}: 403 for an advertiser or publisher on /api/admin`, async () => {
        const publisher = await server.createAccount('publisher');
        for (const client of [advertiser.client, publisher.client]) {
          const body = assertError(await client.get('/api/admin/users', { accept }), 403, name);
          assert.match(body.message, /operators/);
        }
        // The kind check comes before validation: a forbidden caller learns nothing about the body.
        assertError(await advertiser.client.post('/api/admin/users', { bogus: 1 }, { accept }), 403, name);
      });

      it(`${name}: 404 for an unknown route and an unknown object`, async () => {
        assertError(await advertiser.client.get('/api/no-such-thing', { accept }), 404, name);
        assertError(await server.anonymous.get('/nothing/here', { accept }), 404, name);
        assertError(await server.operator.get('/api/admin/users/999999', { accept }), 404, name);
        assertError(await server.operator.get('/api/admin/users/not-a-number', { accept }), 404, name);
        assertError(await server.operator.delete('/api/admin/tokens/999999', { accept }), 404, name);
      });

      it(`${name}: 405 with Allow when the path exists but not the method`, async () => {
        const response = await advertiser.client.post('/api/me', {}, { accept });
        const body = assertError(response, 405, name);
        assert.equal(response.header('allow'), 'GET, HEAD, OPTIONS');
        assert.match(body.message, /GET, HEAD, OPTIONS/);
        const put = await server.operator.put('/api/admin/users/1/ledger', {}, { accept });
        assertError(put, 405, name);
        assert.equal(put.header('allow'), 'GET, HEAD, OPTIONS');
        const users = await server.operator.delete('/api/admin/users', { accept });
        assertError(users, 405, name);
        assert.equal(users.header('allow'), 'GET, HEAD, POST, OPTIONS');
      });

      it(`${name}: 413 for a body over the limit`, async () => {
        const raw = JSON.stringify({
          type: 'advertiser',
          username: 'huge',
          email: 'huge@example.test',
          name: 'x'.repeat(BODY_LIMIT),
        });
        assertError(await server.operator.post('/api/admin/users', undefined, { accept, raw }), 413, name);
        assert.equal((await server.operator.get('/api/admin/users?type=advertiser&per-page=100')).text.includes('"huge"'), false);
      });

      it(`${name}: 415 for a request body of an unsupported type`, async () => {
        const response = await server.operator.post('/api/admin/users', undefined, {
          accept,
          raw: 'type=advertiser',
          contentType: 'text/plain',
        });
        assertError(response, 415, name);
      });

      it(`${name}: 422 naming an unknown field, a wrong type, an over-long string, a missing field`, async () => {
        const base = { type: 'advertiser', username: `u422${name}`, email: `u422${name}@example.test` };
        const unknown = assertError(
          await server.operator.post('/api/admin/users', { ...base, colour: 'red' }, { accept }),
          422,
          name,
        );
        assert.deepEqual(failingFields(unknown), ['colour']);
        const wrongType = assertError(
          await server.operator.post('/api/admin/users', { ...base, parentId: 'seven', maxmoney: 'lots' }, { accept }),
          422,
          name,
        );
        assert.deepEqual(failingFields(wrongType).sort(), ['maxmoney', 'parentId']);
        const tooLong = assertError(
          await server.operator.post('/api/admin/users', { ...base, phone: '1'.repeat(33) }, { accept }),
          422,
          name,
        );
        assert.deepEqual(failingFields(tooLong), ['phone']);
        const missing = assertError(
          await server.operator.post('/api/admin/users', { type: 'advertiser' }, { accept }),
          422,
          name,
        );
        assert.deepEqual(failingFields(missing).sort(), ['email', 'username']);
        for (const body of [unknown, wrongType, tooLong, missing]) {
          for (const entry of body.errors) assert.ok(entry.message.length > 0);
        }
      });

      it(`${name}: 429 with Retry-After once a token's budget is spent`, async () => {
        const limited = await startTestServer({ config: { rateLimitPerSecond: 2 }, database: undefined });
        try {
          const account = await limited.createAccount('advertiser');
          assert.equal((await account.client.get('/api/me')).status, 200);
          assert.equal((await account.client.get('/api/me')).status, 200);
          const response = await account.client.get('/api/me', { accept });
          assertError(response, 429, name);
          // Sliding window (ADR 0004): room for one more once half of this second has slid out.
          assert.equal(response.header('retry-after'), '2');
          assert.equal(response.header('x-rate-limit-limit'), '2');
          assert.equal(response.header('x-rate-limit-remaining'), '0');
          assert.equal(response.header('x-rate-limit-reset'), '2');
        } finally {
          await limited.close();
        }
      });
    }
  });

  it('OPTIONS answers 200 with Allow, without a token', async () => {
    for (const [path, allow] of [
      ['/api/me', 'GET, HEAD, OPTIONS'],
      ['/api/admin/users', 'GET, HEAD, POST, OPTIONS'],
      ['/api/admin/users/5/tokens', 'GET, HEAD, POST, OPTIONS'],
    ] as const) {
      const response = await server.anonymous.request('OPTIONS', path);
      assert.equal(response.status, 200);
      assert.equal(response.header('allow'), allow);
    }
    assert.equal((await server.anonymous.request('OPTIONS', '/api/nothing')).status, 404);
  });

  it('authenticated responses carry the X-Rate-Limit headers', async () => {
    const response = await advertiser.client.get('/api/me');
    assert.equal(response.header('x-rate-limit-limit'), '10000');
    assert.ok(Number(response.header('x-rate-limit-remaining')) < 10000);
    assert.equal(response.header('x-rate-limit-reset'), '2');
    assert.equal((await server.anonymous.get('/api/health')).header('x-rate-limit-limit'), undefined);
  });

  describe('ETag', () => {
    for (const { name, accept } of FORMATS) {
      it(`${name}: GET has an ETag; If-None-Match with it → 304 without a body; a change → a new ETag`, async () => {
        const account = await server.createAccount('advertiser');
        const url = `/api/admin/users/${account.id}`;
        const first = await server.operator.get(url, { accept });
        const etag = first.header('etag');
        assert.ok(etag);
        const again = await server.operator.get(url, { accept, headers: { 'If-None-Match': etag } });
        assert.equal(again.status, 304);
        assert.equal(again.text, '');
        const other = await server.operator.get(url, { accept, headers: { 'If-None-Match': '"something-else"' } });
        assert.equal(other.status, 200);
        await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 1, comment: 'etag' });
        const changed = await server.operator.get(url, { accept, headers: { 'If-None-Match': etag } });
        assert.equal(changed.status, 200);
        assert.notEqual(changed.header('etag'), etag);
      });
    }
    it('the JSON and XML forms have different ETags', async () => {
      const url = `/api/admin/users/${advertiser.id}`;
      const json = await server.operator.get(url);
      const xml = await server.operator.get(url, { accept: 'application/xml' });
      assert.ok(json.header('etag'));
      assert.notEqual(json.header('etag'), xml.header('etag'));
      assert.equal(json.header('vary'), 'Accept');
    });
    it('/api/me answers without an ETag, and If-None-Match changes nothing (docs/adr/0037)', async () => {
      const me = await advertiser.client.get('/api/me');
      assert.equal(me.status, 200);
      assert.equal(me.header('etag'), undefined);
      const again = await advertiser.client.get('/api/me', { headers: { 'If-None-Match': '*' } });
      assert.equal(again.status, 200);
      assert.deepEqual(again.json(), me.json());
    });
  });

  describe('pagination', () => {
    it('sets the Yii2 headers and Link on /api/admin/users', async () => {
      for (let index = 0; index < 4; index++) await server.createAccount('publisher');
      const all = await server.operator.get('/api/admin/users?per-page=100');
      const total = Number(all.header('x-pagination-total-count'));
      assert.equal(all.json().length, total);
      assert.ok(total >= 6);
      const response = await server.operator.get('/api/admin/users?page=2&per-page=2');
      assert.equal(response.status, 200);
      assert.equal(response.json().length, 2);
      assert.deepEqual(
        response.json().map((user: { id: number }) => user.id),
        all
          .json()
          .slice(2, 4)
          .map((user: { id: number }) => user.id),
      );
      assert.equal(response.header('x-pagination-total-count'), String(total));
      assert.equal(response.header('x-pagination-page-count'), String(Math.ceil(total / 2)));
      assert.equal(response.header('x-pagination-current-page'), '2');
      assert.equal(response.header('x-pagination-per-page'), '2');
      const link = response.header('link') ?? '';
      const base = `${server.url}/api/admin/users?page=`;
      assert.ok(link.includes(`<${base}2&per-page=2>; rel=self`), link);
      assert.ok(link.includes(`<${base}1&per-page=2>; rel=first`), link);
      assert.ok(link.includes(`<${base}1&per-page=2>; rel=prev`), link);
      assert.ok(link.includes(`<${base}3&per-page=2>; rel=next`), link);
      assert.ok(link.includes(`<${base}${Math.ceil(total / 2)}&per-page=2>; rel=last`), link);
    });

    it('caps per-page at 100 and rejects page 0 with 422', async () => {
      const response = await server.operator.get('/api/admin/users?per-page=500');
      assert.equal(response.header('x-pagination-per-page'), '100');
      const zero = await server.operator.get('/api/admin/users?page=0');
      assert.deepEqual(failingFields(assertError(zero, 422, 'json')), ['page']);
    });

    it('a list in XML is made of item elements', async () => {
      const response = await server.operator.get('/api/admin/users?per-page=3', { accept: 'application/xml' });
      assert.equal(response.status, 200);
      assert.equal(response.xml().item.length, 3);
      assert.equal(response.xml().item[0].id, '1');
    });

    it('ignores unknown query parameters', async () => {
      const response = await server.operator.get('/api/admin/users?per-page=1&utm_source=x&filter[foo]=bar');
      assert.equal(response.status, 200);
    });
  });

  describe('fields', () => {
    for (const { name, accept } of FORMATS) {
      it(`${name}: fields=a,b limits an object and every list item`, async () => {
        const me = bodyOf(await advertiser.client.get('/api/me?fields=id,balance,nonexistent', { accept }), name);
        assert.deepEqual(Object.keys(me).sort(), ['balance', 'id']);
        const list = await server.operator.get('/api/admin/users?fields=id,type&per-page=2', { accept });
        const items = name === 'xml' ? list.xml().item : list.json();
        assert.equal(items.length, 2);
        for (const item of items) assert.deepEqual(Object.keys(item).sort(), ['id', 'type']);
      });
    }
  });

  describe('input', () => {
    it('201 with Location for a creating POST, and the Location reads the object', async () => {
      const response = await server.operator.post('/api/admin/users', {
        type: 'publisher',
        username: 'located',
        email: 'located@example.test',
      });
      assert.equal(response.status, 201);
      const location = response.header('location') ?? '';
      assert.equal(location, `${server.url}/api/admin/users/${response.json().id}`);
      const read = await server.operator.get(new URL(location).pathname);
      assert.equal(read.json().username, 'located');
    });

    it('201 in XML too', async () => {
      const response = await server.operator.post(
        '/api/admin/users',
        { type: 'advertiser', username: 'xmlmade', email: 'xmlmade@example.test' },
        { accept: 'application/xml' },
      );
      assert.equal(response.status, 201);
      assert.equal(response.xml().username, 'xmlmade');
      assert.ok(response.header('location')?.endsWith(`/api/admin/users/${response.xml().id}`));
    });

    it('takes a form body and query parameters, the body winning', async () => {
      const response = await server.operator.post('/api/admin/users?type=advertiser&username=fromquery&phone=111', undefined, {
        raw: 'username=fromform&email=form%40example.test&phone=222',
        contentType: 'application/x-www-form-urlencoded',
      });
      assert.equal(response.status, 201, response.text);
      const user = response.json();
      assert.equal(user.type, 'advertiser');
      assert.equal(user.username, 'fromform');
      assert.equal(user.email, 'form@example.test');
      assert.equal(user.phone, '222');
    });

    it('takes parameters only in the query string', async () => {
      const response = await server.operator.post('/api/admin/users?type=webmaster&username=onlyquery&email=q%40example.test');
      assert.equal(response.status, 201, response.text);
      assert.equal(response.json().type, 'publisher');
    });

    it('takes an XML body', async () => {
      const response = await server.operator.post('/api/admin/users', undefined, {
        raw: '<request><type>advertiser</type><username>xmlbody</username><email>xmlbody@example.test</email><maxmoney>12.5</maxmoney></request>',
        contentType: 'application/xml',
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.json().maxmoney, 12.5);
    });

    it('stores SQL metacharacters verbatim and returns them in JSON and XML', async () => {
      const nasty = `Robert'); DROP TABLE accounts;-- "quoted" \\ % _ <b>&amp;</b> ü`;
      const response = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'o.hara--x',
        email: "o'hara@example.test",
        name: nasty,
        skype: "'; SELECT pg_sleep(10); --",
        url: 'https://example.test/?q=1%27%20OR%201=1',
      });
      assert.equal(response.status, 201, response.text);
      const id = response.json().id;
      const json = (await server.operator.get(`/api/admin/users/${id}`)).json();
      assert.equal(json.username, 'o.hara--x');
      assert.equal(json.email, "o'hara@example.test");
      assert.equal(json.name, nasty);
      assert.equal(json.skype, "'; SELECT pg_sleep(10); --");
      const xml = (await server.operator.get(`/api/admin/users/${id}`, { accept: 'application/xml' })).xml();
      assert.equal(xml.name, nasty);
      // Where a field's format excludes them, they are a 422 naming the field, never a 500.
      const quoted = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: "x'; DROP TABLE accounts;--",
        email: 'metacharacters@example.test',
      });
      assert.deepEqual(failingFields(assertError(quoted, 422, 'json')), ['username']);
      // Metacharacters in the query string of a list are plain data too.
      const list = await server.operator.get(`/api/admin/users?type=${encodeURIComponent("advertiser' OR '1'='1")}`);
      assertError(list, 422, 'json');
      assert.equal((await server.operator.get('/api/admin/users')).status, 200);
    });

    it('writes nothing when a request fails part-way', async () => {
      const before = Number((await server.operator.get('/api/admin/users')).header('x-pagination-total-count'));
      const failing = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'halfway',
        email: 'halfway@example.test',
        parentId: 999_999,
      });
      assert.deepEqual(failingFields(assertError(failing, 422, 'json')), ['parentId']);
      const after = Number((await server.operator.get('/api/admin/users')).header('x-pagination-total-count'));
      assert.equal(after, before);
      const retry = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'halfway',
        email: 'halfway@example.test',
      });
      assert.equal(retry.status, 201);
    });
  });
});

describe('500', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('hides the stack and SQL in both formats', async () => {
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await server.operator.get('/api/admin/users/1')).status, 200);
    // Pull the storage out from under the running server: every query fails from here on.
    const { database } = server.server.context;
    await database.close();
    server.server.context.database = { ...database, close: async () => undefined };
    for (const { name, accept } of FORMATS) {
      for (const response of [
        await server.operator.get('/api/admin/users/1', { accept }),
        await server.operator.post(
          '/api/admin/users',
          { type: 'advertiser', username: 'late', email: 'late@example.test' },
          { accept },
        ),
        await advertiser.client.get('/api/me', { accept }),
      ]) {
        const body = assertError(response, 500, name);
        assert.equal(body.message, 'An internal server error occurred.');
        assert.doesNotMatch(response.text, /select|insert|stack|at |\.ts|destroyed|pglite|postgres/i);
      }
    }
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  after(() => server.close());

  for (const { name, accept } of FORMATS) {
    it(`${name}: 403 unless X-Forwarded-Proto is https`, async () => {
      assertError(await server.operator.get('/api/me', { accept }), 403, name);
      assertError(await server.operator.get('/api/me', { accept, headers: { 'X-Forwarded-Proto': 'http' } }), 403, name);
      const forwarded = await server.operator.get('/api/admin/users?per-page=1', {
        accept,
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'ads.example.test' },
      });
      assert.equal(forwarded.status, 200);
      assert.match(forwarded.header('link') ?? '', /<https:\/\/ads\.example\.test\/api\/admin\/users\?/);
    });
  }
});
