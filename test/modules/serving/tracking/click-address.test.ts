// The address a click is stored with (clicks.address, inet): truncated to its /24 (IPv4) or /48
// (IPv6) network as docs/privacy.md says, in a form PostgreSQL reads, or null.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clickAddress } from '../../../../src/modules/serving/tracking/visitor.ts';

describe('click address', () => {
  const cases: [string | undefined, string | null][] = [
    ['203.0.113.7', '203.0.113.0'],
    ['::ffff:203.0.113.7', '203.0.113.0'],
    ['::FFFF:10.1.2.3', '10.1.2.0'],
    ['2001:db8:1234:5678::1', '2001:db8:1234::'],
    ['2001:db8::1', '2001:db8::'],
    ['fe80::1%eth0', 'fe80::'],
    ['::1', '::'],
    ['unknown', null],
    ['203.0.113.7, 10.0.0.1', null],
    ['', null],
    [undefined, null],
  ];
  for (const [ip, stored] of cases) {
    it(`${JSON.stringify(ip)} → ${JSON.stringify(stored)}`, () => assert.equal(clickAddress(ip), stored));
  }
});
