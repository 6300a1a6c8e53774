import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutboxWorker } from '../src/outbox-worker.ts';
import { waitFor } from './helpers/wait.ts';

/** Batches the test finishes by hand, so that it decides what happens while one is in flight. */
function scriptedBatches() {
  const pending: { finish: (full: boolean) => void; fail: (error: Error) => void }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let calls = 0;
  const runBatch = () => {
    calls += 1;
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    return new Promise<boolean>((resolve, reject) => {
      const settle = () => {
        inFlight -= 1;
      };
      pending.push({
        finish: (full) => {
          settle();
          resolve(full);
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      });
    });
  };
  const next = async () => {
    await waitFor('a batch in flight', () => pending.length > 0);
    const batch = pending.shift();
    assert.ok(batch);
    return batch;
  };
  return {
    runBatch,
    next,
    get calls() {
      return calls;
    },
    get mostInFlight() {
      return mostInFlight;
    },
  };
}

/** A started worker over scripted batches; its first round is in flight at once. */
function startWorker(options: { finishRoundOnStop?: boolean } = {}) {
  const batches = scriptedBatches();
  const errors: unknown[] = [];
  const worker = new OutboxWorker({
    // Long enough that no poll starts a round in these tests: each round is one the test asked for.
    pollMs: 3_600_000,
    runBatch: batches.runBatch,
    onError: (error) => errors.push(error),
    finishRoundOnStop: options.finishRoundOnStop ?? true,
  });
  worker.start();
  return { worker, batches, errors };
}

describe('OutboxWorker', () => {
  it('repeats batches while they come back full, one at a time', async () => {
    const { worker, batches } = startWorker();
    (await batches.next()).finish(true);
    (await batches.next()).finish(true);
    (await batches.next()).finish(false);
    await worker.idle();
    assert.equal(batches.calls, 3);
    assert.equal(batches.mostInFlight, 1);
    await worker.stop();
  });

  it('turns wakes during a round into one more round, never a second one at once', async () => {
    const { worker, batches } = startWorker();
    const first = await batches.next();
    worker.wake();
    worker.wake();
    worker.wake();
    first.finish(false);
    (await batches.next()).finish(false);
    await worker.idle();
    assert.equal(batches.calls, 2);
    assert.equal(batches.mostInFlight, 1);
    await worker.stop();
  });

  it('stops after the round in flight and ignores wakes once stopped', async () => {
    const { worker, batches } = startWorker();
    const inFlight = await batches.next();
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'stop() waits for the batch in flight');
    inFlight.finish(false);
    await stopping;
    worker.wake();
    await worker.idle();
    assert.equal(batches.calls, 1);
  });

  for (const finishRoundOnStop of [true, false]) {
    it(`${finishRoundOnStop ? 'works through' : 'leaves'} the full batches of the round in flight when stopped`, async () => {
      const { worker, batches } = startWorker({ finishRoundOnStop });
      const inFlight = await batches.next();
      const stopping = worker.stop();
      inFlight.finish(true);
      if (finishRoundOnStop) (await batches.next()).finish(false);
      await stopping;
      assert.equal(batches.calls, finishRoundOnStop ? 2 : 1);
    });
  }

  it('reports a failed round and runs the next one when woken', async () => {
    const { worker, batches, errors } = startWorker();
    const failure = new Error('connection refused');
    (await batches.next()).fail(failure);
    await worker.idle();
    assert.deepEqual(errors, [failure]);
    worker.wake();
    (await batches.next()).finish(false);
    await worker.idle();
    assert.equal(batches.calls, 2);
    await worker.stop();
  });

  it('starts a round every pollMs without being woken', async () => {
    let calls = 0;
    const worker = new OutboxWorker({
      pollMs: 10,
      runBatch: async () => {
        calls += 1;
        return false;
      },
      onError: (error) => assert.fail(String(error)),
      finishRoundOnStop: true,
    });
    worker.start();
    await waitFor('three rounds', () => calls >= 3);
    await worker.stop();
    const afterStop = calls;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(calls, afterStop, 'no round after stop()');
  });
});
