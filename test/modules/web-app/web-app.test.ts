import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildWebIfStale } from '../../../web/scripts/build-if-stale.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('the web app and the security headers', () => {
  let server: TestServer;
  before(async () => {
    buildWebIfStale();
    server = await startTestServer({ env: { CURRENCY: 'eur', TZ: 'Asia/Bangkok', MIN_PAYOUT: '25.5' } });
  });
  after(() => server.close());

  it('serves the app at / with never-cached pages, the app’s security headers and a strict CSP', async () => {
    const page = await server.anonymous.get('/');
    assert.equal(page.status, 200);
    assert.match(page.header('content-type') ?? '', /^text\/html/);
    assert.equal(page.header('cache-control'), 'no-cache');
    assert.match(page.text, /<div id="root">/);
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page');
    const csp = page.header('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.header('strict-transport-security'), 'max-age=31536000');
    assert.equal(page.header('x-content-type-options'), 'nosniff');
    assert.equal(page.header('x-frame-options'), 'DENY');
    assert.equal(page.header('referrer-policy'), 'strict-origin-when-cross-origin');
  });

  it('answers its pages to any Accept that admits HTML, `text/html` alone included', async () => {
    const index = (await server.anonymous.get('/')).text;
    const accepts = ['text/html', 'text/html;q=0.9', 'application/xhtml+xml, text/html', 'text/*'];
    for (const path of ['/', '/sign-in', '/password?token=abc', '/advertiser/campaigns/12', '/operator/outbox']) {
      for (const accept of accepts) {
        const page = await server.anonymous.get(path, { accept });
        assert.equal(page.status, 200, `${path} with Accept: ${accept}`);
        assert.equal(page.text, index, path);
      }
    }
    // The links in e-mails and teasers are followed by browsers too.
    const confirm = await server.anonymous.get('/api/confirm/no-such-link', { accept: 'text/html' });
    assert.equal(confirm.status, 404);
    assert.match(confirm.header('content-type') ?? '', /^text\/html/);
    const click = await server.anonymous.get('/api/serve/click/no-such-link', { accept: 'text/html' });
    assert.equal(click.status, 404);
    assert.match(click.header('content-type') ?? '', /^text\/html/);
    // The API itself still answers only what it can write.
    assert.equal((await server.anonymous.get('/api/platform', { accept: 'text/html' })).status, 415);
  });

  it('answers every page of the app with index.html, and keeps the API’s 404 and 405 elsewhere', async () => {
    const index = (await server.anonymous.get('/')).text;
    for (const path of [
      '/sign-in',
      '/password?token=abc',
      '/advertiser',
      '/advertiser/campaigns/12',
      '/publisher',
      '/publisher/sites/3',
      '/tokens',
    ]) {
      const page = await server.anonymous.get(path);
      assert.equal(page.status, 200, path);
      assert.equal(page.text, index, path);
    }
    for (const path of ['/account', '/advertiser/campaigns/12/traffic', '/advertiser/clients/3', '/advertiser/conversions']) {
      assert.equal((await server.anonymous.get(path)).text, index, path);
    }
    const unknownApi = await server.anonymous.get('/api/nothing-here');
    assert.equal(unknownApi.status, 404);
    assert.equal(unknownApi.json().name, 'Not Found');
    assert.equal((await server.anonymous.post('/', {})).status, 405);
    assert.equal((await server.anonymous.get('/wp-admin')).status, 404);
    assert.equal(
      unknownApi.header('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
      'API answers carry the short policy',
    );
    assert.equal(unknownApi.header('x-content-type-options'), 'nosniff');
    assert.equal(unknownApi.header('strict-transport-security'), 'max-age=31536000');
    assert.equal(unknownApi.header('x-frame-options'), undefined);
    assert.ok(unknownApi.header('x-request-id'));
  });

  it('serves hashed assets cached for a year, and the first page’s JavaScript stays under 150 KB gzipped', async () => {
    const index = (await server.anonymous.get('/')).text;
    // The entry script and the chunks it imports statically (preloaded links): all load before the first page shows.
    const scripts = [
      ...index.matchAll(
        /<script[^>]*src="(\/assets\/[^"]+\.js)"|<link[^>]*rel="modulepreload"[^>]*href="(\/assets\/[^"]+\.js)"/g,
      ),
    ].map((match) => match[1] ?? match[2] ?? '');
    const styles = [...index.matchAll(/<link[^>]*href="(\/assets\/[^"]+\.css)"/g)].map((match) => match[1] ?? '');
    assert.ok(scripts.length > 0 && styles.length > 0, index);
    let gzipped = 0;
    for (const asset of [...scripts, ...styles]) {
      const response = await server.anonymous.get(asset);
      assert.equal(response.status, 200, asset);
      assert.equal(response.header('cache-control'), 'public, max-age=31536000, immutable');
      if (asset.endsWith('.js')) {
        assert.match(response.header('content-type') ?? '', /^text\/javascript/);
        gzipped += gzipSync(response.text).length;
      }
    }
    assert.ok(gzipped <= 150 * 1024, `first page JavaScript is ${gzipped} bytes gzipped`);
    assert.equal((await server.anonymous.get('/assets/missing-0000.js')).status, 404);
  });

  it('leaves what publishers’ pages embed free of the app’s framing and CSP headers', async () => {
    const loader = await server.anonymous.get('/api/serve/loader.js');
    assert.equal(loader.status, 200);
    assert.equal(loader.header('content-security-policy'), undefined);
    assert.equal(loader.header('x-frame-options'), undefined);
    assert.equal(loader.header('x-content-type-options'), 'nosniff');
    assert.equal(loader.header('strict-transport-security'), 'max-age=31536000');
  });

  it('tells the app the platform’s currency, time zone, minimum payout and whether e-mail is delivered', async () => {
    const platform = await server.anonymous.get('/api/platform');
    assert.equal(platform.status, 200);
    assert.deepEqual(platform.json(), { currency: 'EUR', timeZone: 'Asia/Bangkok', emailDelivery: false, minPayout: 25.5 });
    const delivering = await startTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
    try {
      assert.equal((await delivering.anonymous.get('/api/platform')).json<{ emailDelivery: boolean }>().emailDelivery, true);
    } finally {
      await delivering.close();
    }
  });
});
