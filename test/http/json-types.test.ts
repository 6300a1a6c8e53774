import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A JSON body keeps JSON's types: a number is no text and a string no id. Query strings, forms and
 * XML bodies carry only text and stay converted to the declared types; the platform's 0/1 flags
 * stay accepted in JSON.
 */
describe('JSON bodies keep their types', () => {
  let server: TestServer;
  let advertiser: Awaited<ReturnType<TestServer['createAccount']>>;
  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
  });
  after(() => server.close());

  const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((entry) => entry.field);

  it('refuses a number where the schema wants a string, and stores nothing', async () => {
    const before = (await advertiser.client.get('/api/me/tokens')).json().length;
    const response = await advertiser.client.post('/api/me/tokens', { name: 5 });
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(fieldsOf(response.json()), ['name']);
    assert.equal((await advertiser.client.get('/api/me/tokens')).json().length, before);
  });

  it('refuses a string where the schema wants an integer', async () => {
    const response = await advertiser.client.post('/api/advertiser/campaigns', { title: 'Typed', category_id: '2' });
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(fieldsOf(response.json()), ['category_id']);
    const typed = await advertiser.client.post('/api/advertiser/campaigns', { title: 'Typed', category_id: 2 });
    assert.equal(typed.status, 201, typed.text);
  });

  it('still converts a form body, whose values are all text', async () => {
    const response = await advertiser.client.post('/api/advertiser/campaigns', undefined, {
      raw: 'title=From+a+form&category_id=2',
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.json().category_id, 2);
  });

  it('still converts query parameters merged into a JSON body', async () => {
    const response = await advertiser.client.post('/api/advertiser/campaigns?category_id=2', { title: 'Query id' });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.json().category_id, 2);
  });

  it('accepts the integers 0 and 1 as boolean flags, but not the strings', async () => {
    const created = await advertiser.client.post('/api/advertiser/campaigns', { title: 'Flag', category_id: 2 });
    const id = created.json().id as number;
    const off = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { active: 0 });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json().active, false);
    const on = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { active: 1 });
    assert.equal(on.json().active, true);
    const text = await advertiser.client.put(`/api/advertiser/campaigns/${id}`, { active: 'false' });
    assert.equal(text.status, 422, text.text);
    assert.deepEqual(fieldsOf(text.json()), ['active']);
  });
});
