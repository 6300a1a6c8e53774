import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration of the event log (NATS_URL)', () => {
  it('is off without NATS_URL, and reads the servers, stream, replicas and ack wait with it', () => {
    assert.equal(loadConfig({}).nats, undefined);
    assert.deepEqual(loadConfig({ NATS_URL: 'nats://10.0.0.1:4222, nats://10.0.0.2:4222' }).nats, {
      servers: ['nats://10.0.0.1:4222', 'nats://10.0.0.2:4222'],
      stream: 'NATIVA_EVENTS',
      replicas: 3,
      ackWaitMs: 30_000,
    });
    const single = loadConfig({
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_STREAM: 'ADS',
      NATS_REPLICAS: '1',
      NATS_ACK_WAIT_MS: '5000',
    });
    assert.deepEqual(single.nats, { servers: ['nats://127.0.0.1:4222'], stream: 'ADS', replicas: 1, ackWaitMs: 5000 });
  });

  it('reports a bad server, stream name, replica count and ack wait, one line each', () => {
    let error: unknown;
    try {
      loadConfig({ NATS_URL: 'nats://a:4222,http://b', NATS_STREAM: 'bad.name', NATS_REPLICAS: '7', NATS_ACK_WAIT_MS: '10' });
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof ConfigError);
    const names = error.problems.map((line) => /^[A-Z_]+/.exec(line)?.[0]).sort();
    assert.deepEqual(names, ['NATS_ACK_WAIT_MS', 'NATS_REPLICAS', 'NATS_STREAM', 'NATS_URL']);
    assert.ok(
      error.problems.some((line) => line.includes('http://b')),
      'the bad server is named',
    );
  });
});
