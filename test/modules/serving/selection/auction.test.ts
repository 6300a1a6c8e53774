import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { splitCharge } from '../../../../src/modules/serving/billing/charge-split.ts';
import {
  type Candidate,
  INCREMENT_MICROS,
  PRIOR_CLICKS,
  PRIOR_VIEWS,
  priceClick,
  RESERVE_MICROS,
  runAuction,
  smoothedCtr,
} from '../../../../src/modules/serving/selection/auction.ts';
import { ClickSigner, newClickId } from '../../../../src/modules/serving/tracking/click-token.ts';
import { visitorTraits } from '../../../../src/modules/serving/tracking/visitor.ts';
import { BOT_UA, DESKTOP_UA, MOBILE_UA } from '../../../helpers/serving.ts';

const candidate = (ad: string, bidMicros: number, coefficient: number, ctr: number): Candidate<string> => ({
  ad,
  bidMicros,
  coefficient,
  ctr,
});

describe('smoothed CTR', () => {
  const cases: [views: number, clicks: number, expected: number][] = [
    [0, 0, PRIOR_CLICKS / PRIOR_VIEWS],
    [800, 8, 10 / 1000],
    [1800, 198, 200 / 2000],
    [100_000, 0, 2 / 100_200],
    [-5, -1, PRIOR_CLICKS / PRIOR_VIEWS],
  ];
  for (const [views, clicks, expected] of cases) {
    it(`${clicks} clicks in ${views} views → ${expected}`, () => assert.equal(smoothedCtr(views, clicks), expected));
  }
});

describe('auction ranking', () => {
  const cases: { name: string; candidates: Candidate<string>[]; slots: number; expected: string[] }[] = [
    {
      name: 'higher bid wins at equal CTR',
      candidates: [candidate('a', 100_000, 1, 0.01), candidate('b', 200_000, 1, 0.01)],
      slots: 2,
      expected: ['b', 'a'],
    },
    {
      name: 'CTR outweighs a higher bid',
      candidates: [candidate('a', 100_000, 1, 0.05), candidate('b', 200_000, 1, 0.01)],
      slots: 2,
      expected: ['a', 'b'],
    },
    {
      name: 'coefficient multiplies the bid',
      candidates: [candidate('a', 100_000, 3, 0.01), candidate('b', 200_000, 1, 0.01)],
      slots: 1,
      expected: ['a'],
    },
    {
      name: 'only as many winners as slots; ties keep the given order',
      candidates: [candidate('a', 1, 1, 1), candidate('b', 1, 1, 1), candidate('c', 1, 1, 1)],
      slots: 2,
      expected: ['a', 'b'],
    },
    { name: 'no candidates', candidates: [], slots: 4, expected: [] },
    { name: 'zero slots', candidates: [candidate('a', 1, 1, 1)], slots: 0, expected: [] },
    {
      name: 'zero score never serves',
      candidates: [candidate('a', 100_000, 0, 0.01), candidate('b', 100_000, 1, 0.01)],
      slots: 2,
      expected: ['b'],
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      assert.deepEqual(
        runAuction(testCase.candidates, testCase.slots).map((winner) => winner.ad),
        testCase.expected,
      );
    });
  }

  it('ranks 10,000 random candidates like a full sort', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const candidates = Array.from({ length: 10_000 }, (_, index) =>
      candidate(String(index), 10_000 + Math.floor(random() * 1_000_000), 0.1 + random() * 2, 0.001 + random() * 0.05),
    );
    const expected = [...candidates]
      .map((entry, index) => ({ entry, index, score: entry.bidMicros * entry.coefficient * entry.ctr }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, 6)
      .map(({ entry }) => entry.ad);
    assert.deepEqual(
      runAuction(candidates, 6).map((winner) => winner.ad),
      expected,
    );
  });
});

describe('click pricing (second price, capped by bid × coefficients)', () => {
  const cases: [name: string, own: Candidate<string>, nextScore: number | undefined, expected: number][] = [
    ['alone: the reserve', candidate('a', 500_000, 1, 0.01), undefined, RESERVE_MICROS],
    ['alone with a bid under the reserve: the bid', candidate('a', 5_000, 1, 0.01), undefined, 5_000],
    [
      'next bidder sets the price plus the increment',
      candidate('a', 500_000, 1, 0.01),
      300_000 * 0.01,
      300_000 + INCREMENT_MICROS,
    ],
    ['never above the bid × coefficients', candidate('a', 500_000, 1, 0.01), 499_000 * 0.01, 500_000],
    ['coefficient raises the cap', candidate('a', 500_000, 2, 0.01), 800_000 * 0.01, 810_000],
    ['better CTR pays less', candidate('a', 500_000, 1, 0.02), 300_000 * 0.01, 150_000 + INCREMENT_MICROS],
    ['fractional micros round up', candidate('a', 333_333, 0.3, 0.01), 10_000.5 * 0.01, 20_001],
    ['the cap rounds down', candidate('a', 333_333, 0.3, 0.01), 200_000 * 0.01, 99_999],
  ];
  for (const [name, own, nextScore, expected] of cases) {
    it(name, () => assert.equal(priceClick(own, nextScore), expected));
  }

  it('each winner is priced against the one below it', () => {
    const winners = runAuction(
      [candidate('a', 300_000, 1, 0.01), candidate('b', 200_000, 1, 0.01), candidate('c', 100_000, 1, 0.01)],
      2,
    );
    assert.deepEqual(
      winners.map((winner) => winner.chargeMicros),
      [210_000, 110_000],
    );
  });
});

describe('money split', () => {
  const cases: [charge: number, percent: number, publisher: number, margin: number][] = [
    [100_000, 70, 70_000, 30_000],
    [1, 70, 0, 1],
    [3, 70, 2, 1],
    [123_457, 70, 86_419, 37_038],
    [999_999, 100, 999_999, 0],
    [999_999, 0, 0, 999_999],
    [10_001, 33, 3_300, 6_701],
  ];
  for (const [charge, percent, publisher, margin] of cases) {
    it(`${charge} at ${percent}% → ${publisher} + ${margin}`, () => {
      const split = splitCharge(charge, percent);
      assert.deepEqual(split, { publisherMicros: publisher, marginMicros: margin });
      assert.equal(split.publisherMicros + split.marginMicros, charge);
    });
  }
});

describe('click link signatures', () => {
  const signer = new ClickSigner('a'.repeat(40), 3_600_000);
  const claims = {
    clickId: newClickId(),
    offerId: 12,
    campaignId: 3,
    siteId: 7,
    blockId: 9,
    device: 2,
    country: 'TH',
    chargeMicros: 123_456,
    issuedAt: 1_773_144_000_000,
  };
  const token = signer.sign(claims);
  const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);

  const cases: [name: string, token: string, nowMs: number, kind: string][] = [
    ['valid at once', token, claims.issuedAt, 'valid'],
    ['valid just before expiry', token, claims.issuedAt + 3_600_000, 'valid'],
    ['expired after an hour', token, claims.issuedAt + 3_600_001, 'expired'],
    ['from the future', token, claims.issuedAt - 120_000, 'expired'],
    ['payload changed', flip(token, 25), claims.issuedAt, 'forged'],
    ['signature changed', flip(token, 80), claims.issuedAt, 'forged'],
    ['truncated', token.slice(0, 60), claims.issuedAt, 'forged'],
    ['not base64url', `${token.slice(0, 83)}!`, claims.issuedAt, 'forged'],
    ['another secret', new ClickSigner('b'.repeat(40)).sign(claims), claims.issuedAt, 'forged'],
  ];
  for (const [name, candidateToken, nowMs, kind] of cases) {
    it(name, () => assert.equal(signer.verify(candidateToken, nowMs).kind, kind));
  }

  it('is HMAC-SHA256 (truncated to 128 bits) of the payload, for short and long secrets', () => {
    for (const secret of ['a'.repeat(40), 'k'.repeat(100)]) {
      const signed = new ClickSigner(secret).sign(claims);
      const bytes = Buffer.from(signed, 'base64url');
      const expected = createHmac('sha256', secret).update(bytes.subarray(0, 47)).digest().subarray(0, 16);
      assert.deepEqual(bytes.subarray(47), expected);
    }
  });

  it('round-trips every claim, including an unknown country', () => {
    assert.equal(token.length, 84);
    assert.deepEqual(signer.verify(token, claims.issuedAt).claims, claims);
    const nowhere = { ...claims, country: '' };
    assert.deepEqual(signer.verify(signer.sign(nowhere), claims.issuedAt).claims, nowhere);
  });
});

describe('visitor traits', () => {
  const cases: [agent: string | undefined, device: number, bot: boolean][] = [
    [DESKTOP_UA, 1, false],
    [MOBILE_UA, 2, false],
    [
      'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      3,
      false,
    ],
    [BOT_UA, 1, true],
    ['curl/8.5.0', 1, true],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 1, true],
    [undefined, 1, false],
  ];
  for (const [agent, device, bot] of cases) {
    it(`${agent ?? '(none)'} → device ${device}${bot ? ', bot' : ''}`, () =>
      assert.deepEqual((({ device, bot }) => ({ device, bot }))(visitorTraits(agent)), { device, bot }));
  }
  // Operating system and browser come from the same parse (targeting by them: agent-targets.ts).
  const agents: [agent: string | undefined, os: string, osMajor: number, browser: string, browserMajor: number][] = [
    [DESKTOP_UA, 'linux', 0, 'chrome', 131],
    [MOBILE_UA, 'android', 14, 'chrome', 131],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'ios',
      17,
      'safari',
      17,
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'windows', 10, 'firefox', 128],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'windows',
      10,
      'edge',
      131,
    ],
    [undefined, '', 0, '', 0],
  ];
  for (const [agent, os, osMajor, browser, browserMajor] of agents) {
    it(`${agent ?? '(none)'} → ${os || 'unknown'} ${osMajor}, ${browser || 'unknown'} ${browserMajor}`, () =>
      assert.deepEqual(visitorTraits(agent).agent, { os, osMajor, browser, browserMajor }));
  }
});
