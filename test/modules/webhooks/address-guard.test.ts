import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AddressClass, classifyAddress, urlRefusal } from '../../../src/modules/webhooks/address-guard.ts';
import { signatureHeader, verifySignature } from '../../../src/modules/webhooks/signature.ts';
import { nextRetry, RETRY_WINDOW_MS } from '../../../src/modules/webhooks/webhook-deliverer.ts';

describe('webhook address guard', () => {
  const table: [string, AddressClass][] = [
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'private'],
    ['224.0.0.1', 'private'],
    ['255.255.255.255', 'private'],
    ['198.18.0.1', 'private'],
    ['::1', 'loopback'],
    ['::', 'private'],
    ['fe80::1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'private'],
    ['2001:db8::1', 'private'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['::10.0.0.1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::ffff:0:8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2002:a9fe:a9fe::', 'private'],
    ['2002:808:808::1', 'public'],
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b::169.254.169.254', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'private'],
    ['not an address', 'private'],
  ];
  for (const [address, expected] of table) {
    it(`${address} is ${expected}`, () => assert.equal(classifyAddress(address), expected));
  }

  it('refuses what is not https, carries credentials or reaches a reserved address', async () => {
    assert.equal(await urlRefusal(new URL('https://93.184.216.34/hook'), false), undefined);
    assert.match((await urlRefusal(new URL('http://93.184.216.34/hook'), false)) ?? '', /https/);
    assert.match((await urlRefusal(new URL('ftp://93.184.216.34/hook'), false)) ?? '', /https/);
    assert.match((await urlRefusal(new URL('https://u:p@93.184.216.34/'), false)) ?? '', /password/);
    assert.match((await urlRefusal(new URL('https://127.0.0.1:8443/'), false)) ?? '', /private or reserved/);
    assert.match((await urlRefusal(new URL('https://[::ffff:127.0.0.1]/'), false)) ?? '', /private or reserved/);
    assert.match((await urlRefusal(new URL('https://[::ffff:0:7f00:1]/'), false)) ?? '', /private or reserved/);
    assert.match((await urlRefusal(new URL('https://[2002:7f00:1::]/'), false)) ?? '', /private or reserved/);
    assert.match((await urlRefusal(new URL('https://localhost/'), false)) ?? '', /private or reserved/);
    assert.match((await urlRefusal(new URL('https://10.0.0.8/'), false)) ?? '', /private or reserved/);
    // WEBHOOK_ALLOW_PRIVATE: loopback and private pass, and plain http only to loopback.
    assert.equal(await urlRefusal(new URL('https://127.0.0.1:8443/'), true), undefined);
    assert.equal(await urlRefusal(new URL('http://127.0.0.1:8443/'), true), undefined);
    assert.match((await urlRefusal(new URL('http://10.0.0.8/'), true)) ?? '', /https/);
  });
});

describe('webhook signature', () => {
  const body = '{"id":"evt_1","type":"webhook.test"}';
  it('verifies with the secret over the timestamp and the body, and nothing else', () => {
    const header = signatureHeader(['whsec_a'], 1_000_000, body);
    assert.match(header, /^t=1000000,v1=[0-9a-f]{64}$/);
    assert.equal(verifySignature('whsec_a', header, body, 1_000_010), true);
    assert.equal(verifySignature('whsec_b', header, body, 1_000_010), false);
    assert.equal(verifySignature('whsec_a', header, `${body} `, 1_000_010), false);
    assert.equal(verifySignature('whsec_a', header.replace('t=1000000', 't=1000001'), body, 1_000_010), false);
    // An old delivery replayed later is refused.
    assert.equal(verifySignature('whsec_a', header, body, 1_000_000 + 301), false);
  });
  it('carries one signature per secret in force during a rotation', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], 5, body);
    assert.equal(header.split(',').length, 3);
    assert.equal(verifySignature('whsec_new', header, body, 5), true);
    assert.equal(verifySignature('whsec_old', header, body, 5), true);
  });
});

describe('webhook retry schedule', () => {
  const created = Date.UTC(2026, 0, 1);
  it('doubles from one minute, at most three hours apart, with a last attempt at 24 hours', () => {
    const minute = 60_000;
    assert.equal(nextRetry(1, created, created)?.getTime(), created + minute);
    assert.equal(nextRetry(2, created, created + minute)?.getTime(), created + 3 * minute);
    assert.equal(nextRetry(5, created, created)?.getTime(), created + 16 * minute);
    assert.equal(nextRetry(12, created, created + 3_600_000)?.getTime(), created + 4 * 3_600_000);
    assert.equal(nextRetry(20, created, created + 23 * 3_600_000)?.getTime(), created + RETRY_WINDOW_MS);
    assert.equal(nextRetry(21, created, created + RETRY_WINDOW_MS), null);
  });
  it('makes about fifteen attempts in the 24 hours', () => {
    let now = created;
    let attempts = 1;
    for (let next = nextRetry(attempts, created, now); next !== null; next = nextRetry(attempts, created, now)) {
      now = next.getTime();
      attempts += 1;
    }
    assert.equal(now, created + RETRY_WINDOW_MS);
    assert.ok(attempts >= 13 && attempts <= 16, `${attempts} attempts`);
  });
});
