import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { adsTxtHasLine } from '../../../src/modules/privacy/ads-txt.ts';
import { AdsTxtChecker } from '../../../src/modules/privacy/ads-txt-checker.ts';
import { insertSite } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const NETWORK = 'ads.nativa.test';

/** A publisher's web server on loopback: each path answers as `answers` says (`hang`: never). */
function startPublisherSite(tls: { cert: string; key: string }, answers: Record<string, string | 'hang' | number>) {
  const site = https.createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
    const answer = answers[request.url ?? ''] ?? 404;
    if (answer === 'hang') return;
    if (typeof answer === 'number') {
      response.writeHead(answer).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer);
  });
  return new Promise<{ port: number; close(): Promise<void> }>((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      resolve({
        port: (site.address() as AddressInfo).port,
        close: () =>
          new Promise((done) => {
            site.closeAllConnections();
            site.close(() => done());
          }),
      });
    });
  });
}

describe('sellers.json and ads.txt', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: { ADS_TXT_DOMAIN: NETWORK, SELLERS_CONTACT_EMAIL: 'dpo@nativa.test' },
      // As the webhook tests do: loopback allowed, the test certificate trusted, a short timeout.
      config: { webhookAllowPrivate: true, webhookTimeoutMs: 500 },
    });
  });
  after(() => server.close());

  it('sellers.json lists every publisher with an active site, named or confidential', async () => {
    const db = server.server.context.db;
    const named = await server.createAccount('publisher', { name: 'Daily News Ltd' });
    const unnamed = await server.createAccount('publisher');
    const inactive = await server.createAccount('publisher', { name: 'Waiting' });
    await insertSite(db, { publisherId: named.id, url: 'https://www.daily-news.test/' });
    await insertSite(db, { publisherId: unnamed.id, url: 'https://blog.test/' });
    await insertSite(db, { publisherId: inactive.id, url: 'https://waiting.test/', status: 0 });
    const answer = await server.anonymous.get('/sellers.json');
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<{ version: string; contact_email: string; sellers: Record<string, unknown>[] }>();
    assert.equal(body.version, '1.0');
    assert.equal(body.contact_email, 'dpo@nativa.test');
    const byId = new Map(body.sellers.map((seller) => [seller.seller_id, seller]));
    assert.deepEqual(byId.get(String(named.id)), {
      seller_id: String(named.id),
      seller_type: 'PUBLISHER',
      name: 'Daily News Ltd',
      domain: 'daily-news.test',
    });
    assert.equal(byId.get(String(unnamed.id))?.is_confidential, 1);
    assert.equal(byId.get(String(unnamed.id))?.name, undefined);
    assert.equal(byId.has(String(inactive.id)), false, 'a publisher without an active site is not a seller');
  });

  it("the publisher's site page shows the exact line; never personalise is the publisher's own", async () => {
    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    const other = await server.createAccount('publisher');
    const site = await insertSite(db, { publisherId: publisher.id });
    const own = await publisher.client.get(`/api/webmaster/sites/${site.id}/privacy`);
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json<{ ads_txt_line: string }>().ads_txt_line, `${NETWORK}, ${publisher.id}, DIRECT`);
    assert.equal((await other.client.get(`/api/webmaster/sites/${site.id}/privacy`)).status, 404);
    assert.equal((await other.client.put(`/api/webmaster/sites/${site.id}/privacy`, { never_personalise: true })).status, 404);
    assert.equal(
      (await publisher.client.put(`/api/webmaster/sites/${site.id}/privacy`, { never_personalise: 'yes' })).status,
      422,
    );
    assert.equal(
      (await publisher.client.put(`/api/webmaster/sites/${site.id}/privacy`, { never_personalise: true, x: 1 })).status,
      422,
    );
    const audited = () =>
      db
        .selectFrom('audit_entries')
        .select('after')
        .where('action', '=', 'site.privacy')
        .where('object_id', '=', String(site.id))
        .execute();
    assert.equal((await audited()).length, 0, 'refused changes are not audited');
    const set = await publisher.client.put(`/api/webmaster/sites/${site.id}/privacy`, { never_personalise: true });
    assert.equal(set.json<{ never_personalise: boolean }>().never_personalise, true);
    assert.deepEqual(
      (await audited()).map((row) => row.after),
      [{ never_personalise: true }],
    );
    assert.equal((await server.operator.get(`/api/webmaster/sites/${site.id}/privacy`)).status, 403);
  });

  it('reads ads.txt lines as the IAB format writes them', () => {
    const text = `# ads.txt\ncontact=ads@example.com\ngoogle.com, pub-1, DIRECT, f08c47fec0942fa0\n${NETWORK.toUpperCase()} ,  42 , direct # ours\n`;
    assert.equal(adsTxtHasLine(text, NETWORK, 42), true);
    assert.equal(adsTxtHasLine(text, NETWORK, 4), false);
    assert.equal(adsTxtHasLine(`${NETWORK}, 42, RESELLER`, NETWORK, 42), false);
    assert.equal(adsTxtHasLine(`# ${NETWORK}, 42, DIRECT`, NETWORK, 42), false);
  });

  it("the background check finds, misses, times out, and refuses private addresses without WEBHOOK_ALLOW_PRIVATE; the operator's card shows it", async () => {
    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    const good = await startPublisherSite(server.tls, { '/ads.txt': `${NETWORK}, ${publisher.id}, DIRECT\n` });
    const without = await startPublisherSite(server.tls, { '/ads.txt': 'google.com, pub-1, DIRECT\n' });
    const none = await startPublisherSite(server.tls, {});
    const hanging = await startPublisherSite(server.tls, { '/ads.txt': 'hang' });
    try {
      const sites = {
        found: await insertSite(db, { publisherId: publisher.id, url: `https://127.0.0.1:${good.port}/` }),
        missing: await insertSite(db, { publisherId: publisher.id, url: `https://127.0.0.1:${without.port}/` }),
        absent: await insertSite(db, { publisherId: publisher.id, url: `https://127.0.0.1:${none.port}/` }),
        hanging: await insertSite(db, { publisherId: publisher.id, url: `https://127.0.0.1:${hanging.port}/` }),
      };
      const options = {
        db,
        clock: server.clock,
        networkDomain: NETWORK,
        intervalMs: 86_400_000,
        allowPrivate: true,
        ca: server.tls.cert,
        timeoutMs: 500,
        onError: (error: unknown) => assert.fail(String(error)),
      };
      const checker = new AdsTxtChecker(options);
      const checked = await checker.pass();
      assert.ok(checked >= 4, `${checked} sites checked`);
      const card = async (siteId: number) => {
        const answer = await server.operator.get(`/api/admin/sites/${siteId}/privacy`);
        assert.equal(answer.status, 200, answer.text);
        return answer.json<{ ads_txt: { status: string; detail: string; checked_at: string | null } }>().ads_txt;
      };
      assert.equal((await card(sites.found.id)).status, 'found');
      assert.equal((await card(sites.missing.id)).status, 'missing');
      const absent = await card(sites.absent.id);
      assert.deepEqual([absent.status, absent.detail], ['unreachable', '/ads.txt answered HTTP 404.']);
      const slow = await card(sites.hanging.id);
      assert.deepEqual([slow.status, slow.detail], ['unreachable', '/ads.txt did not answer in time.']);
      assert.equal((await card(sites.found.id)).checked_at, new Date(server.clock.now()).toISOString());
      assert.equal(await checker.pass(), 0, 'nothing is due again within the interval');

      // The SSRF guard: without WEBHOOK_ALLOW_PRIVATE a loopback site is refused, never fetched.
      const guarded = new AdsTxtChecker({ ...options, allowPrivate: false });
      const refused = await guarded.checkSite(sites.found.id, sites.found.url, publisher.id, NETWORK);
      assert.equal(refused.status, 'unreachable');
      assert.match(refused.detail, /public|address/i);
    } finally {
      await Promise.all([good.close(), without.close(), none.close(), hanging.close()]);
    }
  });
});
