import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';

describe("a site's domains: where its blocks serve", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { IVT_ALLOW_DEV_HOSTS: 'false' } });
  });
  after(() => server.close());

  it('the publisher lists further domains; blocks answer pages there and on the address’s domain only', async () => {
    const world = await createWorld(server);
    const teasersFrom = async (origin: string) => {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA, Origin: origin },
      });
      assert.equal(response.status, 200, response.text);
      return response.json<{ teasers: unknown[] }>().teasers.length;
    };
    // The fixtures' sites are on news.example.test.
    assert.ok((await teasersFrom('https://news.example.test')) > 0);
    assert.equal(await teasersFrom('https://mirror.example.com'), 0);

    const path = `/api/webmaster/sites/${world.siteId}`;
    const changed = await world.publisher.put(path, {
      domains: ['Mirror.Example.com', 'www.amp-news.example.net', 'mirror.example.com'],
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.json<{ domains?: string[] }>().domains, ['mirror.example.com', 'amp-news.example.net']);
    assert.deepEqual((await world.publisher.get(path)).json<{ domains?: string[] }>().domains, [
      'mirror.example.com',
      'amp-news.example.net',
    ]);
    await engineOf(server).refresh();
    assert.ok((await teasersFrom('https://mirror.example.com')) > 0);
    assert.ok((await teasersFrom('https://m.amp-news.example.net')) > 0, 'a subdomain of one');
    assert.equal(await teasersFrom('https://example.com'), 0, 'a parent domain is not the site');

    const wrong = await world.publisher.put(path, { domains: ['not a domain'] }, { headers: { 'Accept-Language': 'ru' } });
    assert.equal(wrong.status, 422, wrong.text);
    const body = wrong.json<{ errors: { field: string; message: string }[] }>();
    assert.deepEqual(
      body.errors.map((error) => [error.field, error.message]),
      [['domains', 'Это не доменное имя: not a domain.']],
    );
    const stranger = await server.createAccount('publisher');
    assert.equal((await stranger.client.put(path, { domains: [] })).status, 404);
    const cleared = await world.publisher.put(path, { domains: [] });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.json<{ domains?: string[] }>().domains, undefined);
  });
});
