import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ERRORS, type ErrorCode } from '../../src/errors.ts';
import { STATUS_OF } from '../../src/http/errors.ts';
import { assertError, FORMATS } from '../helpers/assertions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('the error catalogue', () => {
  const entries = Object.entries(ERRORS) as [ErrorCode, (typeof ERRORS)[ErrorCode]][];

  it('gives every entry its own positive integer code', () => {
    const codes = entries.map(([, entry]) => entry.code);
    for (const code of codes) assert.ok(Number.isInteger(code) && code > 0, `code ${code}`);
    const repeated = codes.filter((code, index) => codes.indexOf(code) !== index);
    assert.deepEqual(repeated, [], `codes used twice: ${repeated.join(', ')}`);
  });

  it('names entries in snake_case and describes each', () => {
    for (const [name, entry] of entries) {
      assert.match(name, /^[a-z]+(_[a-z]+)*$/);
      assert.ok(entry.description.length > 10, name);
    }
  });

  it('is listed in docs/errors.md, every entry with its code and status', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| (\d+) \| `([a-z_]+)` \| (\d+) \|/gm)].map((row) => `${row[1]} ${row[2]} ${row[3]}`);
    assert.deepEqual(
      listed,
      entries.map(([name, entry]) => `${entry.code} ${name} ${STATUS_OF[name]}`),
    );
  });

  it('maps every entry to an error status', () => {
    for (const [name] of entries) {
      const status = STATUS_OF[name];
      assert.ok(Number.isInteger(status) && status >= 400 && status < 600, `${name}: ${status}`);
    }
  });
});

describe('routes answer the catalogue codes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { rateLimitPerSecond: 1000 } });
  });
  after(() => server.close());

  /** The body's code, checked as the one of `name` in both formats, with its status. */
  async function expectCode(
    request: (accept: string) => Promise<Parameters<typeof assertError>[0]>,
    name: ErrorCode,
  ): Promise<Record<string, unknown>> {
    let json: Record<string, unknown> = {};
    for (const format of FORMATS) {
      const body = assertError(await request(format.accept), STATUS_OF[name], format.name);
      assert.equal(Number(body.code), ERRORS[name].code, `${format.name}: ${JSON.stringify(body)}`);
      if (format.name === 'json') json = body;
    }
    return json;
  }

  it('not_found for another advertiser’s campaign, route_not_found for an unknown path', async () => {
    const owner = await server.createAccount('advertiser');
    const other = await server.createAccount('advertiser');
    const created = await owner.client.post('/api/advertiser/campaigns', { title: 'Mine', category_id: 2 });
    assert.equal(created.status, 201, created.text);
    const id = created.json().id;
    await expectCode((accept) => other.client.get(`/api/advertiser/campaigns/${id}`, { accept }), 'not_found');
    await expectCode((accept) => other.client.get('/api/advertiser/no-such-thing', { accept }), 'route_not_found');
  });

  it('validation_failed with errors[] for a campaign without a title', async () => {
    const advertiser = await server.createAccount('advertiser');
    const body = await expectCode(
      (accept) => advertiser.client.post('/api/advertiser/campaigns', { title: '', category_id: 2 }, { accept }),
      'validation_failed',
    );
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
  });

  it('validation_failed from a service rule: a statistics period that ends before it starts', async () => {
    const publisher = await server.createAccount('publisher');
    await expectCode(
      (accept) => publisher.client.get('/api/webmaster/statistic?dateFrom=2026-02-02&dateTo=2026-02-01', { accept }),
      'validation_failed',
    );
  });

  it('unauthenticated without a token, wrong_account_kind for a publisher on an advertiser route', async () => {
    const publisher = await server.createAccount('publisher');
    await expectCode((accept) => server.anonymous.get('/api/me', { accept }), 'unauthenticated');
    await expectCode((accept) => publisher.client.get('/api/advertiser/campaigns', { accept }), 'wrong_account_kind');
  });

  it('method_not_allowed and unsupported_media_type', async () => {
    const advertiser = await server.createAccount('advertiser');
    await expectCode((accept) => advertiser.client.request('PATCH', '/api/me', { accept }), 'method_not_allowed');
    const refused = await advertiser.client.get('/api/me', { accept: 'text/html' });
    assert.equal(assertError(refused, 415, 'json').code, ERRORS.unsupported_media_type.code);
  });

  it('site_banned for a block on a banned site', async () => {
    const publisher = await server.createAccount('publisher');
    const site = await publisher.client.post('/api/webmaster/sites', { url: 'https://codes-banned.example.com', category_id: 3 });
    assert.equal(site.status, 201, site.text);
    const id = site.json().id;
    assert.equal((await server.operator.put(`/api/admin/sites/${id}`, { status: 2 })).status, 200);
    await expectCode(
      (accept) => publisher.client.post(`/api/webmaster/sites/${id}/blocks`, { title: 'Nope' }, { accept }),
      'site_banned',
    );
  });
});
