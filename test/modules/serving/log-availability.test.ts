import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogAvailability } from '../../../src/modules/serving/event-log/log-availability.ts';

/** A log that answers its probe when told to, and what the availability said of it. */
function fixture() {
  let answers = false;
  let now = 0;
  const changes: [boolean, number][] = [];
  const availability = new LogAvailability({
    probe: async () => {
      if (!answers) throw new Error('no leader');
    },
    intervalMs: 60_000,
    onChange: (available, downForMs) => changes.push([available, downForMs]),
    now: () => now,
  });
  return {
    availability,
    changes,
    answer: (value: boolean) => {
      answers = value;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('the event log’s availability', () => {
  it('is available until a publish fails or the connection is lost, and says so once', () => {
    const { availability, changes } = fixture();
    assert.equal(availability.available, true);
    availability.markDown();
    availability.markDown();
    assert.equal(availability.available, false);
    assert.deepEqual(changes, [[false, 0]]);
    availability.close();
  });

  it('comes back only when the probe answers, with how long it was away', async () => {
    const { availability, changes, answer, advance } = fixture();
    availability.markDown();
    advance(2500);
    await availability.probeNow();
    assert.equal(availability.available, false, 'no answer, still away');
    answer(true);
    advance(500);
    await availability.probeNow();
    assert.equal(availability.available, true);
    assert.deepEqual(changes, [
      [false, 0],
      [true, 3000],
    ]);
    await availability.probeNow();
    assert.equal(changes.length, 2, 'a probe while available changes nothing');
    availability.close();
  });
});
