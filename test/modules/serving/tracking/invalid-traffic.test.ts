import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type GivtRequest,
  givtReason,
  onSite,
  pageHost,
  siteHostsOf,
} from '../../../../src/modules/serving/tracking/invalid-traffic.ts';
import { Networks } from '../../../../src/modules/serving/tracking/networks.ts';
import { BOT_UA, DESKTOP_UA } from '../../../helpers/serving.ts';

describe('general invalid traffic: the decision on one request', () => {
  const settings = { networks: new Networks({ asnFiles: [], hostingFile: undefined }), allowDevHosts: false };
  const site = siteHostsOf('https://www.news.example.org/home', ['mirror.example.com']);
  const person: GivtRequest = {
    userAgent: DESKTOP_UA,
    clientHints: '"Chromium";v="131", "Not_A Brand";v="24"',
    purposes: [undefined, undefined, undefined, undefined],
    address: '73.12.4.5',
    page: 'https://news.example.org/article',
  };
  const cases: [string, Partial<GivtRequest>, boolean, string | null][] = [
    ['a person', {}, true, null],
    ['a declared robot', { userAgent: BOT_UA }, false, 'bot'],
    ['an HTTP library', { userAgent: 'Go-http-client/1.1' }, false, 'bot'],
    ['a link preview', { userAgent: 'facebookexternalhit/1.1' }, false, 'bot'],
    ['no User-Agent on a teasers request', { userAgent: undefined }, false, null],
    ['no User-Agent on a click', { userAgent: undefined }, true, 'bot'],
    ['HeadlessChrome', { userAgent: DESKTOP_UA.replace('Chrome/', 'HeadlessChrome/') }, false, 'automation'],
    ['a headless brand in Sec-CH-UA', { clientHints: '"HeadlessChrome";v="131"' }, false, 'automation'],
    ['Selenium', { userAgent: `${DESKTOP_UA} Selenium/4` }, false, 'automation'],
    ['Sec-Purpose: prefetch', { purposes: ['prefetch', undefined, undefined, undefined] }, false, 'prefetch'],
    ['Sec-Purpose: prefetch;prerender', { purposes: ['prefetch;prerender', undefined, undefined, undefined] }, false, 'prefetch'],
    ['X-Moz: prefetch', { purposes: [undefined, undefined, 'prefetch', undefined] }, true, 'prefetch'],
    ['an AWS address', { address: '3.5.1.2' }, false, 'datacenter'],
    ['a Hetzner IPv6 address', { address: '2a01:4f8::1' }, false, 'datacenter'],
    ['a mapped IPv4 address of Google Cloud', { address: '::ffff:8.8.8.8' }, false, 'datacenter'],
    ['a mobile network', { address: '172.56.1.1' }, false, null],
    ['loopback', { address: '127.0.0.1' }, false, null],
    ['a page of another site', { page: 'https://copycat.example.net/x' }, false, 'foreign_site'],
    ['a look-alike host', { page: 'https://evilnews.example.org' }, false, 'foreign_site'],
    ['a subdomain', { page: 'https://m.news.example.org/x' }, false, null],
    ["the site's extra domain", { page: 'https://amp.mirror.example.com:8443/x' }, false, null],
    ['localhost, development hosts off', { page: 'http://localhost:3000/' }, false, 'foreign_site'],
    ['no page at all', { page: undefined }, false, null],
  ];
  for (const [name, change, browserOnly, expected] of cases) {
    it(`${name} → ${expected ?? 'valid'}`, () => {
      assert.equal(givtReason({ ...person, ...change }, site, settings, browserOnly), expected);
    });
  }

  it('reads hosts of Origin and Referer values; development hosts only when allowed', () => {
    assert.equal(pageHost('https://News.Example.org:8443/a?b#c'), 'news.example.org');
    assert.equal(pageHost('null'), '');
    assert.deepEqual(site, ['news.example.org', 'mirror.example.com']);
    assert.equal(onSite('http://localhost:3000', site, true), true);
    assert.equal(onSite('http://shop.test', site, true), true);
    assert.equal(onSite('http://192.168.1.20:8080', site, true), true);
    assert.equal(onSite('https://example.org', site, true), false, 'a parent domain is not the site');
  });
});
