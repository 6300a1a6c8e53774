import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
}

describe('the OpenAPI document as the source of a typed SDK', () => {
  let server: TestServer;
  let operations: { name: string; operation: Operation }[];
  before(async () => {
    server = await startTestServer();
    const response = await server.anonymous.get('/api/openapi.json');
    assert.equal(response.status, 200);
    const paths = response.json().paths as Record<string, Record<string, Operation>>;
    operations = Object.entries(paths).flatMap(([route, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.has(method))
        .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${route}`, operation })),
    );
  });
  after(() => server.close());

  it('names every operation with a unique camelCase operationId', () => {
    assert.ok(operations.length > 50, `only ${operations.length} operations`);
    const seen = new Map<string, string>();
    for (const { name, operation } of operations) {
      const id = operation.operationId;
      assert.ok(id, `${name} has no operationId`);
      assert.match(id, /^[a-z][A-Za-z0-9]*$/, `${name}: ${id} is not camelCase`);
      assert.equal(seen.get(id), undefined, `${name} and ${seen.get(id)} share the operationId ${id}`);
      seen.set(id, name);
    }
  });

  it('documents at least one 4xx answer of every operation', () => {
    // The conversion pixel sits in advertisers' thank-you pages, the view pixel in native ads' markup:
    // they answer their GIF to anything.
    const alwaysSucceeds = new Set(['recordConversionPixel', 'recordViewPixel']);
    for (const { name, operation } of operations) {
      if (operation.operationId !== undefined && alwaysSucceeds.has(operation.operationId)) continue;
      const statuses = Object.keys(operation.responses ?? {});
      assert.ok(
        statuses.some((status) => /^4\d\d$/.test(status)),
        `${name} documents no 4xx response (${statuses.join(', ')})`,
      );
    }
  });

  it('declares what the server takes: any pixel query, the beacon’s text/plain, flags as true/false or 1/0', async () => {
    const document = (await server.anonymous.get('/api/openapi.json')).json();
    // The conversion pixel answers its GIF to any query: the document requires none of it.
    const pixel = document.paths['/api/serve/pixel.gif'].get.parameters as { name: string; required?: boolean }[];
    assert.deepEqual(
      pixel.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      [],
    );
    const views = document.paths['/api/serve/views'].post.requestBody.content;
    assert.deepEqual(Object.keys(views).sort(), ['application/json', 'text/plain']);
    assert.equal(views['text/plain'].schema.type, 'string');
    const active =
      document.paths['/api/advertiser/campaigns/{id}'].put.requestBody.content['application/json'].schema.properties.active;
    assert.deepEqual(active.anyOf, [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }]);
    const advertiser = await server.createAccount('advertiser');
    const created = await advertiser.client.post('/api/advertiser/campaigns', { title: 'Flags', category_id: 2 });
    assert.equal(created.status, 201, created.text);
    const path = `/api/advertiser/campaigns/${created.json<{ id: number }>().id}`;
    for (const [active, status] of [
      [0, 200],
      [1, 200],
      [false, 200],
      ['yes', 422],
      [2, 422],
      ['true', 422],
      [null, 422],
    ] as const) {
      assert.equal((await advertiser.client.put(path, { active })).status, status, JSON.stringify(active));
    }
  });

  it('names a server, relative without PUBLIC_URL', async () => {
    const document = (await server.anonymous.get('/api/openapi.json')).json();
    assert.deepEqual(document.servers, [{ url: '/' }]);
  });
});
