import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClickSigner, newClickId } from '../../../../src/modules/serving/tracking/click-token.ts';
import {
  CAPPED_VIEW_TOKEN_LENGTH,
  VIEW_TOKEN_LENGTH,
  VIEW_TOKEN_SKEW_MS,
  VIEW_TOKEN_TTL_MS,
  ViewSigner,
} from '../../../../src/modules/serving/tracking/view-token.ts';
import { respell } from '../../../helpers/respell.ts';

describe('impression token signatures', () => {
  const secret = 'b'.repeat(40);
  const signer = new ViewSigner(secret);
  const claims = {
    impressionId: newClickId(),
    offerId: 4_000_000_001,
    campaignId: 3,
    siteId: 7,
    blockId: 9,
    device: 3,
    country: 'TH',
    issuedAt: 1_773_144_000_000,
  };
  const token = signer.sign(claims);
  const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
  const clickToken = new ClickSigner(secret).sign({ ...claims, clickId: claims.impressionId, chargeMicros: 10_000 });

  it('round-trips every claim in a URL-safe token of fixed length', () => {
    assert.equal(token.length, VIEW_TOKEN_LENGTH);
    assert.match(token, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(signer.verify(token, claims.issuedAt), { kind: 'valid', claims });
    const unknownCountry = signer.sign({ ...claims, country: '' });
    assert.deepEqual(signer.verify(unknownCountry, claims.issuedAt), { kind: 'valid', claims: { ...claims, country: '' } });
  });

  const cases: [name: string, token: string, nowMs: number, kind: string][] = [
    ['valid at once', token, claims.issuedAt, 'valid'],
    ['valid at the end of its hour', token, claims.issuedAt + VIEW_TOKEN_TTL_MS, 'valid'],
    ['expired a millisecond later', token, claims.issuedAt + VIEW_TOKEN_TTL_MS + 1, 'expired'],
    ['from a clock slightly ahead', token, claims.issuedAt - VIEW_TOKEN_SKEW_MS, 'valid'],
    ['from the future', token, claims.issuedAt - VIEW_TOKEN_SKEW_MS - 1, 'expired'],
    ['payload changed', flip(token, 20), claims.issuedAt, 'forged'],
    ['signature changed', flip(token, 70), claims.issuedAt, 'forged'],
    ['signed under another secret', new ViewSigner('c'.repeat(40)).sign(claims), claims.issuedAt, 'forged'],
    ['a click link token of the same teaser', clickToken, claims.issuedAt, 'forged'],
    ['the same length as a click token but not one', clickToken.slice(0, VIEW_TOKEN_LENGTH), claims.issuedAt, 'forged'],
    ['truncated', token.slice(0, -1), claims.issuedAt, 'forged'],
    ['too long', `${token}A`, claims.issuedAt, 'forged'],
    ['not base64url', `${token.slice(0, -1)}+`, claims.issuedAt, 'forged'],
    ['empty', '', claims.issuedAt, 'forged'],
  ];
  for (const [name, candidate, nowMs, kind] of cases) {
    it(`${name} → ${kind}`, () => assert.equal(signer.verify(candidate, nowMs).kind, kind));
  }

  it('an expired token still names its impression (it is tallied, not counted)', () => {
    const verdict = signer.verify(token, claims.issuedAt + VIEW_TOKEN_TTL_MS + 1);
    assert.equal(verdict.kind, 'expired');
    assert.equal(verdict.claims?.impressionId, claims.impressionId);
  });

  describe("a capped campaign's token carries its visitor", () => {
    const visitor = 'AAECAwQFBgcICQoLDA0ODw';
    const capped = signer.sign({ ...claims, visitor });
    it('round-trips the visitor in a longer token of fixed length', () => {
      assert.equal(capped.length, CAPPED_VIEW_TOKEN_LENGTH);
      assert.deepEqual(signer.verify(capped, claims.issuedAt), { kind: 'valid', claims: { ...claims, visitor } });
    });
    const forgeries: [name: string, token: string][] = [
      ['visitor changed', flip(capped, 60)],
      ['visitor cut off (the short length)', capped.slice(0, VIEW_TOKEN_LENGTH)],
      ['a short token with a visitor appended', `${token}${capped.slice(VIEW_TOKEN_LENGTH)}`],
      ['signature changed', flip(capped, 90)],
      ['truncated', capped.slice(0, -1)],
      ['the same bytes spelt another way', respell(capped)],
    ];
    for (const [name, candidate] of forgeries) {
      it(`${name} → forged`, () => assert.equal(signer.verify(candidate, claims.issuedAt).kind, 'forged'));
    }
  });

  it('signs different impressions of the same ad differently', () => {
    const other = signer.sign({ ...claims, impressionId: newClickId() });
    assert.notEqual(other, token);
    assert.equal(signer.verify(other, claims.issuedAt).kind, 'valid');
  });
});
