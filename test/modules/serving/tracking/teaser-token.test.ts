import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { ClickSigner, newClickId } from '../../../../src/modules/serving/tracking/click-token.ts';
import {
  CAPPED_TEASER_TOKEN_LENGTH,
  TEASER_TOKEN_LENGTH,
  TeaserSigner,
} from '../../../../src/modules/serving/tracking/teaser-token.ts';
import { ViewSigner } from '../../../../src/modules/serving/tracking/view-token.ts';
import { respell } from '../../../helpers/respell.ts';

describe('teaser tokens: one MAC, a click half and an impression half', () => {
  const secret = 'd'.repeat(40);
  const signer = new TeaserSigner(secret, 3_600_000);
  const claimsOf = (offerId: number) => ({
    clickId: newClickId(),
    offerId,
    campaignId: 3,
    siteId: 7,
    blockId: 9,
    device: 2,
    country: 'TH',
    chargeMicros: 123_456,
    issuedAt: 1_773_144_000_000,
  });
  const a = claimsOf(4_000_000_001);
  const b = claimsOf(42);
  const tokensA = signer.sign(a);
  const tokensB = signer.sign(b);
  const now = a.issuedAt;
  const viewOf = ({ clickId, chargeMicros: _charge, ...rest }: typeof a & { visitor?: string }) => ({
    impressionId: clickId,
    ...rest,
  });

  it('round-trips the claims through both tokens, which differ only in their MAC half', () => {
    assert.equal(tokensA.click.length, TEASER_TOKEN_LENGTH);
    assert.equal(tokensA.view.length, TEASER_TOKEN_LENGTH);
    assert.match(tokensA.click, /^[A-Za-z0-9_-]+$/);
    assert.notEqual(tokensA.click, tokensA.view);
    assert.equal(tokensA.click.slice(0, 68), tokensA.view.slice(0, 68), 'the same payload');
    assert.deepEqual(signer.verifyClick(tokensA.click, now), { kind: 'valid', claims: a });
    assert.deepEqual(signer.verifyView(tokensA.view, now), { kind: 'valid', claims: viewOf(a) });
    const nowhere = { ...a, country: '' };
    assert.deepEqual(signer.verifyClick(signer.sign(nowhere).click, now).claims, nowhere);
  });

  it('an impression token is no click link, and a click link no impression token', () => {
    assert.equal(signer.verifyClick(tokensA.view, now).kind, 'forged');
    assert.equal(signer.verifyView(tokensA.click, now).kind, 'forged');
  });

  const swapped: [string, string][] = [
    ["A's payload with B's click half", tokensA.click.slice(0, 68) + tokensB.click.slice(68)],
    ["B's payload with A's click half", tokensB.click.slice(0, 68) + tokensA.click.slice(68)],
    ["A's payload with A's impression half", tokensA.click.slice(0, 68) + tokensA.view.slice(68)],
    ["A's payload with B's impression half", tokensA.click.slice(0, 68) + tokensB.view.slice(68)],
  ];
  for (const [name, candidate] of swapped) {
    it(`click link of ${name} → forged`, () => assert.equal(signer.verifyClick(candidate, now).kind, 'forged'));
  }
  const swappedViews: [string, string][] = [
    ["A's payload with B's impression half", tokensA.view.slice(0, 68) + tokensB.view.slice(68)],
    ["A's payload with A's click half", tokensA.view.slice(0, 68) + tokensA.click.slice(68)],
  ];
  for (const [name, candidate] of swappedViews) {
    it(`impression token of ${name} → forged`, () => assert.equal(signer.verifyView(candidate, now).kind, 'forged'));
  }

  it('a changed byte anywhere, another secret, another format or length → forged', () => {
    const flip = (text: string, index: number) =>
      text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
    for (let index = 0; index < TEASER_TOKEN_LENGTH - 1; index += 1) {
      // The last character holds only 4 bits of the MAC half; flipping A↔B changes a padding bit there.
      assert.equal(signer.verifyClick(flip(tokensA.click, index), now).kind, 'forged', `click, character ${index}`);
      assert.equal(signer.verifyView(flip(tokensA.view, index), now).kind, 'forged', `view, character ${index}`);
    }
    const other = new TeaserSigner('e'.repeat(40)).sign(a);
    assert.equal(signer.verifyClick(other.click, now).kind, 'forged');
    assert.equal(signer.verifyView(other.view, now).kind, 'forged');
    const bytes = Buffer.from(tokensA.click, 'base64url');
    bytes[0] = 4;
    assert.equal(signer.verifyClick(bytes.toString('base64url'), now).kind, 'forged');
    assert.equal(signer.verifyClick(tokensA.click.slice(0, -1), now).kind, 'forged');
    assert.equal(signer.verifyClick(`${tokensA.click}A`, now).kind, 'forged');
    assert.equal(signer.verifyClick(`${tokensA.click.slice(0, -1)}+`, now).kind, 'forged');
  });

  it('reads only the one spelling of its bytes: another last character for the same bytes → forged', () => {
    const capped = signer.sign({ ...a, visitor: newClickId() });
    for (const token of [tokensA.click, tokensA.view, capped.click, capped.view]) {
      const respelt = respell(token);
      assert.deepEqual(Buffer.from(respelt, 'base64url'), Buffer.from(token, 'base64url'), 'the same bytes');
      assert.equal(signer.verifyClick(respelt, now).kind, 'forged');
      assert.equal(signer.verifyView(respelt, now).kind, 'forged');
    }
    assert.equal(signer.verifyClick(tokensA.click, now).kind, 'valid');
  });

  it('expires after the TTL and refuses tokens from the future, both halves alike', () => {
    assert.equal(signer.verifyClick(tokensA.click, now + 3_600_000).kind, 'valid');
    assert.equal(signer.verifyClick(tokensA.click, now + 3_600_001).kind, 'expired');
    assert.equal(signer.verifyView(tokensA.view, now + 3_600_001).kind, 'expired');
    assert.equal(signer.verifyView(tokensA.view, now - 60_001).kind, 'expired');
    assert.deepEqual(signer.verifyClick(tokensA.click, now + 3_600_001).claims, a);
  });

  it("a capped campaign's teaser names its visitor in both tokens; it can be neither removed nor added", () => {
    const visitor = newClickId();
    const capped = signer.sign({ ...a, visitor });
    assert.equal(capped.click.length, CAPPED_TEASER_TOKEN_LENGTH);
    assert.equal(capped.view.length, CAPPED_TEASER_TOKEN_LENGTH);
    assert.deepEqual(signer.verifyView(capped.view, now), { kind: 'valid', claims: { ...viewOf(a), visitor } });
    assert.deepEqual(signer.verifyClick(capped.click, now), { kind: 'valid', claims: a });
    assert.equal(signer.verifyClick(capped.view, now).kind, 'forged');
    assert.equal(signer.verifyView(capped.click, now).kind, 'forged');
    const payload = Buffer.from(capped.view, 'base64url');
    const cut = Buffer.concat([payload.subarray(0, 51), payload.subarray(67)]).toString('base64url');
    assert.equal(signer.verifyView(cut, now).kind, 'forged', 'visitor cut out');
    const added = Buffer.concat([
      Buffer.from(tokensA.view, 'base64url').subarray(0, 51),
      Buffer.from(visitor, 'base64url'),
      Buffer.from(tokensA.view, 'base64url').subarray(51),
    ]).toString('base64url');
    assert.equal(signer.verifyView(added, now).kind, 'forged', 'visitor added');
  });

  it('signNew draws a fresh click id per teaser, the same in both tokens, under the MAC of createHmac', () => {
    const { clickId: _clickId, ...served } = a;
    const key = createHmac('sha256', secret).update('nativa teaser tokens v2').digest();
    const seen = new Set<string>();
    for (const visitor of [undefined, newClickId()]) {
      for (let index = 0; index < 50; index += 1) {
        const claims = visitor === undefined ? served : { ...served, visitor };
        const tokens = signer.signNew(claims);
        const click = signer.verifyClick(tokens.click, now);
        const view = signer.verifyView(tokens.view, now);
        assert.equal(click.kind, 'valid');
        assert.equal(view.kind, 'valid');
        const clickId = click.claims?.clickId ?? '';
        assert.equal(view.claims?.impressionId, clickId);
        assert.deepEqual(click.claims, { ...served, clickId });
        assert.equal(view.claims?.visitor, visitor);
        assert.ok(!seen.has(clickId), 'a new click id every time');
        seen.add(clickId);
        // The format of docs/adr/0037, written independently: base64url of the payload and one MAC half.
        const payloadBytes = visitor === undefined ? 51 : 67;
        const payload = Buffer.from(tokens.click, 'base64url').subarray(0, payloadBytes);
        const mac = createHmac('sha256', key).update(payload).digest();
        assert.equal(tokens.click, Buffer.concat([payload, mac.subarray(0, 16)]).toString('base64url'));
        assert.equal(tokens.view, Buffer.concat([payload, mac.subarray(16)]).toString('base64url'));
      }
    }
  });

  it('carries the network the teaser was served to; format-2 links of the hour before the upgrade still verify', () => {
    const withAsn = signer.sign({ ...a, servedAsn: 7922 });
    assert.deepEqual(signer.verifyClick(withAsn.click, now), { kind: 'valid', claims: { ...a, servedAsn: 7922 } });
    const key = createHmac('sha256', secret).update('nativa teaser tokens v2').digest();
    const payload = Buffer.from(tokensA.click, 'base64url').subarray(0, 48);
    payload[0] = 2;
    const mac = createHmac('sha256', key).update(payload).digest();
    const format2 = Buffer.concat([payload, mac.subarray(0, 16)]).toString('base64url');
    assert.equal(format2.length, 86);
    assert.deepEqual(signer.verifyClick(format2, now), { kind: 'valid', claims: a });
  });

  it('format-1 links and tokens handed out before the upgrade still verify for their hour, each at its own endpoint', () => {
    const clickV1 = new ClickSigner(secret).sign(a);
    const viewV1 = new ViewSigner(secret).sign(viewOf(a));
    assert.deepEqual(signer.verifyClick(clickV1, now), { kind: 'valid', claims: a });
    assert.deepEqual(signer.verifyView(viewV1, now), { kind: 'valid', claims: viewOf(a) });
    assert.equal(signer.verifyClick(clickV1, now + 3_600_001).kind, 'expired');
    assert.equal(signer.verifyView(clickV1, now).kind, 'forged');
    assert.equal(signer.verifyClick(viewV1, now).kind, 'forged');
    assert.equal(signer.verifyClick(new ClickSigner('e'.repeat(40)).sign(a), now).kind, 'forged');
  });
});
