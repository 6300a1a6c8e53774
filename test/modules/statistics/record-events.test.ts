import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayOf } from '../../../src/modules/statistics/vocabulary.ts';

describe('dayOf', () => {
  it('gives the calendar day in the time zone, also across midnight within the same UTC hour', () => {
    // 2026-11-23 23:59:30 in Asia/Kolkata (UTC+05:30) is 18:29:30 UTC; 30 s later it is the 24th there.
    const beforeMidnight = Date.UTC(2026, 10, 23, 18, 29, 30);
    assert.equal(dayOf(beforeMidnight, 'Asia/Kolkata'), '2026-11-23');
    assert.equal(dayOf(beforeMidnight + 20_000, 'Asia/Kolkata'), '2026-11-23', 'same minute');
    assert.equal(dayOf(beforeMidnight + 30_000, 'Asia/Kolkata'), '2026-11-24', 'the next minute');
    assert.equal(dayOf(beforeMidnight + 30_000, 'UTC'), '2026-11-23', 'each zone on its own');
    assert.equal(dayOf(beforeMidnight - 86_400_000, 'Asia/Kolkata'), '2026-11-22', 'going back in time');
    assert.equal(dayOf(beforeMidnight + 30_000, 'Asia/Kolkata'), '2026-11-24');
  });
});
