// The bound on a click's acceptance (CLICK_ACCEPT_TIMEOUT_MS) in the group commit, and the
// withdrawal of what a statement wrote after its redirects stopped waiting (docs/operating.md,
// "A database that stops answering"). The database is a function the test answers by hand;
// time is Node's mocked timers.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { AcceptanceVerdict, IncomingClick } from '../../../../src/modules/serving/billing/acceptance.ts';
import { ClickAcceptanceTimeout, ClickBatcher } from '../../../../src/modules/serving/billing/click-batcher.ts';
import { ClickWithdrawals } from '../../../../src/modules/serving/billing/click-withdrawals.ts';

function click(clickId: string): IncomingClick {
  return {
    claims: {
      clickId,
      offerId: 1,
      campaignId: 1,
      siteId: 1,
      blockId: 1,
      device: 1,
      country: 'DE',
      chargeMicros: 10_000,
      issuedAt: 0,
    },
    advertiserId: 1,
    publisherId: 2,
    nowMs: 0,
    address: null,
    refusal: null,
  };
}

/** A database whose statements answer only when the test says so. */
function handDatabase() {
  const statements: { ids: string[]; answer(verdicts: AcceptanceVerdict[]): void; fail(error: Error): void }[] = [];
  const accept = (clicks: IncomingClick[]) =>
    new Promise<AcceptanceVerdict[]>((resolve, reject) => {
      statements.push({ ids: clicks.map((one) => one.claims.clickId), answer: resolve, fail: reject });
    });
  return { statements, accept };
}

function outcomesLog() {
  const log = { committed: [] as string[], late: [] as string[], failed: [] as string[] };
  const ids = (clicks: IncomingClick[]) => clicks.map((one) => one.claims.clickId);
  return {
    log,
    outcomes: {
      committed: (clicks: IncomingClick[]) => log.committed.push(...ids(clicks)),
      committedLate: (clicks: IncomingClick[]) => log.late.push(...ids(clicks)),
      failed: (clicks: IncomingClick[]) => log.failed.push(...ids(clicks)),
    },
  };
}

/** Lets promise callbacks run (the mocked timers do not move on their own). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function mockTime(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  return (ms: number) => t.mock.timers.tick(ms);
}

describe('the bound on a click acceptance', () => {
  it('a click still queued at its bound is taken out and never written', async (t) => {
    const tick = mockTime(t);
    const database = handDatabase();
    const { log, outcomes } = outcomesLog();
    const batcher = new ClickBatcher(database.accept, { maxInFlight: 1, outcomes });
    const first = batcher.submit(click('a'), 1000);
    await settle();
    const queued = batcher.submit(click('b'), 1000);
    const rejected = assert.rejects(queued, ClickAcceptanceTimeout);
    const firstRejected = assert.rejects(first, ClickAcceptanceTimeout);
    tick(1000);
    await rejected;
    await firstRejected;
    // The first statement answers late: its click was abandoned; the queued one was never sent.
    database.statements[0]?.answer(['accepted']);
    await settle();
    assert.deepEqual(
      database.statements.map((statement) => statement.ids),
      [['a']],
    );
    assert.deepEqual(log, { committed: [], late: ['a'], failed: [] });
    await batcher.idle();
  });

  it('in one late batch, the click that gave up is withdrawn and the one still waiting is kept', async (t) => {
    const tick = mockTime(t);
    const database = handDatabase();
    const { log, outcomes } = outcomesLog();
    const batcher = new ClickBatcher(database.accept, { outcomes });
    const early = batcher.submit(click('early'), 1000);
    tick(600);
    const later = batcher.submit(click('later'), 1000);
    await settle();
    const statement = database.statements[0];
    assert.deepEqual(statement?.ids, ['early', 'later'], 'one statement holds both');
    const gaveUp = assert.rejects(early, ClickAcceptanceTimeout);
    tick(400);
    await gaveUp;
    statement?.answer(['accepted', 'accepted']);
    assert.equal(await later, 'accepted', 'the waiting click gets its verdict');
    assert.deepEqual(log, { committed: ['later'], late: ['early'], failed: [] });
  });

  it('a failed statement reports its clicks, whose fate is unknown', async (t) => {
    mockTime(t);
    const database = handDatabase();
    const { log, outcomes } = outcomesLog();
    const batcher = new ClickBatcher(database.accept, { outcomes });
    const waiting = batcher.submit(click('c'), 1000);
    await settle();
    database.statements[0]?.fail(new Error('Connection terminated unexpectedly'));
    await assert.rejects(waiting, /Connection terminated/);
    assert.deepEqual(log, { committed: [], late: [], failed: ['c'] });
  });
});

describe('withdrawing clicks redirected unrecorded', () => {
  it('retries while the database is away, reports a click a settlement took first, withdraws uncertain ones twice', async (t) => {
    const tick = mockTime(t);
    const calls: string[][] = [];
    let away = true;
    const settledFirst: string[] = [];
    const errors: unknown[] = [];
    const withdrawals = new ClickWithdrawals({
      withdraw: async (clickIds) => {
        calls.push(clickIds);
        if (away) throw new Error('connect ECONNREFUSED');
        const settled = clickIds.filter((id) => id === 'billed-first').map((click_id) => ({ click_id, status: 'billed' }));
        return { withdrawn: clickIds.length - settled.length, settled };
      },
      onSettledFirst: (clickId, status) => settledFirst.push(`${clickId} ${status}`),
      onError: (error) => errors.push(error),
      retryMs: 1000,
      recheckMs: 5000,
    });
    withdrawals.add(['late', 'billed-first']);
    withdrawals.add(['unknown'], true);
    await settle();
    assert.ok(withdrawals.has('late') && withdrawals.has('unknown'), 'this instance settles none of them meanwhile');
    tick(1000);
    await settle();
    tick(1000);
    await settle();
    assert.equal(calls.length, 3, 'retried every second while away');
    assert.equal(errors.length, 1, 'the failure is reported once, not on every retry');
    away = false;
    tick(1000);
    await settle();
    assert.deepEqual(settledFirst, ['billed-first billed']);
    assert.ok(!withdrawals.has('late'), 'withdrawn');
    assert.ok(withdrawals.has('unknown'), 'an uncertain one waits for its second withdrawal');
    tick(5000);
    await settle();
    assert.deepEqual(calls.at(-1), ['unknown']);
    assert.ok(!withdrawals.has('unknown'));
    await withdrawals.close();
  });
});
