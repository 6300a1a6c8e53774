// The split of a refund between advertiser, publisher and platform, and its ledger rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planRefund, type RefundableClick, refundLedgerChanges } from '../../../src/modules/refunds/refund-plan.ts';

const PLATFORM = 1;
const click = (clickId: string, advertiserId: number, publisherId: number, chargeMicros: number): RefundableClick => {
  const publisherMicros = Math.floor((chargeMicros * 70) / 100);
  return { clickId, advertiserId, publisherId, chargeMicros, publisherMicros, marginMicros: chargeMicros - publisherMicros };
};

describe('refund plan', () => {
  const cases: {
    name: string;
    clicks: RefundableClick[];
    balances: [number, number][];
    reversed: number[];
    shortfall: number;
  }[] = [
    {
      name: 'a publisher with money gives every share back',
      clicks: [click('a', 10, 20, 100_000), click('b', 10, 20, 50_000)],
      balances: [
        [20, 1_000_000],
        [PLATFORM, 1_000_000],
      ],
      reversed: [70_000, 35_000],
      shortfall: 0,
    },
    {
      name: 'a publisher gives back what its balance holds, click by click, and no more',
      clicks: [click('a', 10, 20, 100_000), click('b', 10, 20, 100_000), click('c', 10, 20, 100_000)],
      balances: [
        [20, 90_000],
        [PLATFORM, 1_000_000],
      ],
      reversed: [70_000, 20_000, 0],
      shortfall: 0,
    },
    {
      name: 'each publisher is limited by its own balance',
      clicks: [click('a', 10, 20, 100_000), click('b', 11, 21, 100_000)],
      balances: [
        [20, 0],
        [21, 500_000],
        [PLATFORM, 1_000_000],
      ],
      reversed: [0, 70_000],
      shortfall: 0,
    },
    {
      name: 'the platform lacking its margin and the unrecovered share shows a shortfall',
      clicks: [click('a', 10, 20, 100_000)],
      balances: [
        [20, 0],
        [PLATFORM, 40_000],
      ],
      reversed: [0],
      shortfall: 100_000 - 40_000,
    },
  ];
  for (const { name, clicks, balances, reversed, shortfall } of cases) {
    it(name, () => {
      const plan = planRefund(clicks, new Map(balances), PLATFORM);
      assert.deepEqual(
        plan.clicks.map((reversal) => reversal.publisherReversedMicros),
        reversed,
      );
      for (const reversal of plan.clicks) {
        assert.equal(reversal.publisherReversedMicros + reversal.publisherUnrecoveredMicros, reversal.publisherMicros);
      }
      assert.equal(plan.platformShortfallMicros, shortfall);
      const charges = clicks.reduce((sum, one) => sum + one.chargeMicros, 0);
      assert.equal(plan.refundedMicros, charges);
      assert.equal(plan.publisherReversedMicros + plan.publisherUnrecoveredMicros + plan.marginReversedMicros, charges);
      const changes = refundLedgerChanges(plan, { id: 7, reason: 'bot', createdBy: 3 }, PLATFORM);
      assert.equal(
        changes.reduce((sum, change) => sum + change.amountMicros, 0),
        0,
        'the ledger rows of a refund sum to zero',
      );
      assert.ok(changes.every((change) => change.reference === '7' && change.createdBy === 3 && change.amountMicros !== 0));
      for (const [accountId, balance] of balances) {
        if (accountId === PLATFORM) continue;
        const moved = changes
          .filter((change) => change.accountId === accountId)
          .reduce((sum, change) => sum + change.amountMicros, 0);
        assert.ok(balance + moved >= 0, `publisher ${accountId} stays at zero or above`);
      }
    });
  }

  it('writes one credit per advertiser, one debit per publisher, and the platform’s margin and borne shares apart', () => {
    const plan = planRefund(
      [click('a', 10, 20, 100_000), click('b', 11, 20, 200_000)],
      new Map([
        [20, 100_000],
        [PLATFORM, 1_000_000],
      ]),
      PLATFORM,
    );
    const changes = refundLedgerChanges(plan, { id: 9, reason: 'click_flood', createdBy: null }, PLATFORM);
    assert.deepEqual(
      changes.map(({ accountId, amountMicros, kind, counterpartyId, comment }) => ({
        accountId,
        amountMicros,
        kind,
        counterpartyId,
        comment,
      })),
      [
        { accountId: 10, amountMicros: 100_000, kind: 'refund_charge', counterpartyId: 20, comment: 'click_flood: 1 click' },
        { accountId: 11, amountMicros: 200_000, kind: 'refund_charge', counterpartyId: 20, comment: 'click_flood: 1 click' },
        { accountId: 20, amountMicros: -100_000, kind: 'refund_revenue', counterpartyId: null, comment: 'click_flood: 2 clicks' },
        {
          accountId: PLATFORM,
          amountMicros: -90_000,
          kind: 'refund_margin',
          counterpartyId: null,
          comment: 'click_flood: 2 clicks',
        },
        {
          accountId: PLATFORM,
          amountMicros: -110_000,
          kind: 'refund_unrecovered',
          counterpartyId: 20,
          comment: "click_flood: the publisher's balance could not cover its share",
        },
      ],
    );
  });
});
