import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCampaign, offerFields } from '../helpers/advertiser.ts';
import type { TestClient, TestResponse } from '../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A 422 names every failing field at once: those its schema refuses and those its service's own
 * rules refuse, in JSON and in XML, and writes nothing.
 */

let server: TestServer;
let advertiser: { id: number; client: TestClient };
let publisher: { id: number; client: TestClient };
let campaignId: number;

describe('a 422 names every failing field', () => {
  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    campaignId = await createCampaign(advertiser.client, { title: 'Audio', category_id: 2, geo: 'DE' });
  });

  after(() => server.close());

  function xmlBody(fields: Record<string, unknown>): string {
    const elements = Object.entries(fields).map(([name, value]) => {
      const values = Array.isArray(value) ? value : [value];
      return values.map((item) => `<${name}>${String(item)}</${name}>`).join('');
    });
    return `<?xml version="1.0" encoding="UTF-8"?><request>${elements.join('')}</request>`;
  }

  type Format = 'json' | 'xml';

  function post(client: TestClient, path: string, fields: Record<string, unknown>, format: Format): Promise<TestResponse> {
    if (format === 'json') return client.post(path, fields);
    return client.request('POST', path, { raw: xmlBody(fields), contentType: 'application/xml', accept: 'application/xml' });
  }

  /** The failing fields of a 422, in order, each named once. */
  function failingFields(response: TestResponse, format: Format): { field: string; message: string }[] {
    assert.equal(response.status, 422, response.text);
    const body = format === 'json' ? response.json() : response.xml();
    assert.equal(Number(body.status), 422);
    const errors: { field: string; message: string }[] = format === 'json' ? body.errors : body.errors.item;
    assert.equal(new Set(errors.map((error) => error.field)).size, errors.length, response.text);
    for (const error of errors) assert.ok(body.message.includes(`${error.field}: ${error.message}`), response.text);
    return errors;
  }

  const countRows = async (table: 'offers' | 'campaigns' | 'sites' | 'blocks' | 'accounts' | 'categories' | 'payouts') => {
    const row = await server.server.context.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  };

  for (const format of ['json', 'xml'] as const) {
    describe(`every failing field in one 422 (${format})`, () => {
      it('names a bad discount, a 61-character description and a zero click price on an ad', async () => {
        const before = await countRows('offers');
        const fields = await offerFields(campaignId, { discount: 9, description: 'd'.repeat(61), clickPrice: 0 });
        const errors = failingFields(await post(advertiser.client, '/api/advertiser/offers', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['clickPrice', 'description', 'discount']);
        assert.equal(errors.find((error) => error.field === 'description')?.message, 'Must be at most 60 characters.');
        assert.equal(await countRows('offers'), before);
      });

      it('names schema and rule failures of a campaign together', async () => {
        const before = await countRows('campaigns');
        const fields = { title: 'x', category_id: 201, geo: 'DE,XX', maxmoney: '1.23456', maxclicks: -1 };
        const errors = failingFields(await post(advertiser.client, '/api/advertiser/campaigns', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['category_id', 'geo', 'maxclicks', 'maxmoney']);
        assert.equal(await countRows('campaigns'), before);
      });

      it('names schema and rule failures of a site together', async () => {
        const before = await countRows('sites');
        const fields = { url: 'ftp://files.example.test', category_id: 9999, monthly_uniq_users: -1 };
        const errors = failingFields(await post(publisher.client, '/api/webmaster/sites', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['category_id', 'monthly_uniq_users', 'url']);
        assert.equal(await countRows('sites'), before);
      });

      it('names schema and rule failures of a block together', async () => {
        const before = await countRows('blocks');
        const fields = { title: '', count: 3, size: 5 };
        const errors = failingFields(await post(publisher.client, '/api/webmaster/sites/1/blocks', fields, format), format);
        assert.deepEqual(
          errors.map((error) => error.field),
          ['title', 'size'],
        );
        assert.equal(await countRows('blocks'), before);
      });

      it('names schema and rule failures of an account the operator creates together', async () => {
        const taken = (await advertiser.client.get('/api/me')).json();
        const before = await countRows('accounts');
        const fields = {
          type: 'robot',
          username: taken.username,
          email: `fresh-${format}@example.test`,
          parentId: 999999,
          maxmoney: '1.23456',
        };
        const errors = failingFields(await post(server.operator, '/api/admin/users', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['maxmoney', 'parentId', 'type', 'username']);
        assert.equal(await countRows('accounts'), before);
      });

      it('names schema and rule failures of a client account together', async () => {
        const taken = (await publisher.client.get('/api/me')).json();
        const before = await countRows('accounts');
        const fields = { user: taken.username, email: taken.email, bogus: 1 };
        const errors = failingFields(await post(advertiser.client, '/api/advertiser/users', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['bogus', 'email', 'user']);
        assert.equal(await countRows('accounts'), before);
      });

      it('names schema and rule failures of a category together', async () => {
        const before = await countRows('categories');
        const errors = failingFields(
          await post(server.operator, '/api/admin/categories', { title: 'Kites', parentId: 999999, bogus: 1 }, format),
          format,
        );
        assert.deepEqual(errors.map((error) => error.field).sort(), ['bogus', 'parentId']);
        assert.equal(await countRows('categories'), before);
      });

      it('names schema and rule failures of a payout together', async () => {
        const before = await countRows('payouts');
        const fields = { userId: advertiser.id, amount: '-5', wallet: '', status: 'cancelled' };
        const errors = failingFields(await post(server.operator, '/api/admin/payouts', fields, format), format);
        assert.deepEqual(errors.map((error) => error.field).sort(), ['amount', 'status', 'userId', 'wallet']);
        assert.equal(await countRows('payouts'), before);
      });
    });
  }

  describe('a field that fails both its schema and a rule', () => {
    it('is named once, with the schema’s message first', async () => {
      const fields = await offerFields(campaignId, { clickPrice: -1, description: ' ', campaignId: 'x' });
      const errors = failingFields(await advertiser.client.post('/api/advertiser/offers', fields), 'json');
      assert.deepEqual(
        errors.map((error) => error.field),
        ['campaignId', 'clickPrice', 'description'],
      );
      assert.equal(errors[1]?.message, 'Must be more than 0.');
    });

    it('leaves the rules of an ill-typed field to the schema', async () => {
      const response = await publisher.client.post('/api/webmaster/sites', { url: 42, category_id: 'x' });
      const errors = failingFields(response, 'json');
      assert.deepEqual(errors.map((error) => error.field).sort(), ['category_id', 'url']);
    });
  });

  describe('what a refused request logs', () => {
    const lines: { level: number; msg: string }[] = [];
    let logged: TestServer;
    before(async () => {
      const stream = { write: (line: string) => lines.push(JSON.parse(line)) };
      logged = await startTestServer({ logger: { level: 'info', stream } });
    });
    after(() => logged.close());

    it('logs input the database refuses (a NUL byte: invalid UTF-8 to it) as a client error, not at error level', async () => {
      const parent = await logged.createAccount('advertiser');
      lines.length = 0;
      // The schema refuses both fields; the rules still look the login up, and the database refuses it.
      const response = await parent.client.post('/api/advertiser/users', { user: 'nul\u0000byte', email: 'x' });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        lines.filter((line) => line.level >= 50).map((line) => line.msg),
        [],
        'nothing at error level',
      );
      assert.ok(lines.some((line) => line.level === 30 && /client error/.test(line.msg)));
    });
  });
});
