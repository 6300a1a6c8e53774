import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { cleanEnv } from '../helpers/clean-env.ts';
import { migratedDataDir } from '../helpers/database.ts';

const MAIN = path.join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false, headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

/** Starts `nativa serve` with LOG_FORMAT, sends one request with a proxy's request id, returns the log. */
async function serveOneRequest(format: 'pretty' | 'json'): Promise<string> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-logging-'));
  // Not a test of a first start: the database is there, migrated, as on any later start.
  await migratedDataDir(dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: format }),
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => {
        if (log.includes('Server listening')) resolve();
      });
      exited.then(() => reject(new Error(`the server exited: ${log}`)));
    });
    // A serving request (an unknown block's teasers) is counted by the metrics, not logged.
    assert.equal(await get(`https://127.0.0.1:${port}/api/serve/blocks/1/teasers`, { 'X-Request-Id': 'edge-serve' }), 404);
    assert.equal(await get(`https://127.0.0.1:${port}/api/me`, { 'X-Request-Id': 'edge-42' }), 401);
    // The completion line is written after the response; wait for it rather than for a time.
    await new Promise<void>((resolve) => {
      const done = () => {
        if (/request completed/.test(log)) resolve();
      };
      child.stdout.on('data', done);
      done();
    });
    return log;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('logs', () => {
  it('writes one JSON object per line, each line of a request with its id', async () => {
    const lines = (await serveOneRequest('json'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const ofRequest = lines.filter((line) => line.reqId === 'edge-42');
    assert.deepEqual(
      ofRequest.map((line) => line.msg),
      ['incoming request', 'request completed'],
    );
    assert.equal(ofRequest[1].res.statusCode, 401);
    assert.deepEqual(
      lines.filter((line) => line.reqId === 'edge-serve'),
      [],
      'serving requests are not logged one by one at LOG_LEVEL info',
    );
    // Without PUBLIC_URL, a warning at start says once which base e-mail links use.
    const base = lines.filter((line) => /^e-mail links will use/.test(line.msg));
    assert.equal(base.length, 1);
    assert.match(base[0].msg, /^e-mail links will use https:\/\/127\.0\.0\.1:\d+, the configured address/);
    assert.equal(base[0].level, 40);
  });

  it('writes short readable lines when asked for pretty logs', async () => {
    const log = await serveOneRequest('pretty');
    assert.match(log, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[edge-42\] incoming request GET \/api\/me$/m);
    assert.match(log, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[edge-42\] request completed 401 in \d+\.\d ms$/m);
    assert.doesNotMatch(log, /^\{/m, 'no JSON lines');
  });

  it('validates LOG_FORMAT, METRICS_TOKEN and CURRENCY, each on its own line', () => {
    assert.throws(
      () => loadConfig({ LOG_FORMAT: 'yaml', METRICS_TOKEN: 'short', CURRENCY: 'XYZ' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'LOG_FORMAT=yaml: expected pretty or json',
          'METRICS_TOKEN: must be at least 16 characters',
          'CURRENCY=XYZ: expected an ISO 4217 currency code such as USD or EUR',
        ]);
        return true;
      },
    );
    const config = loadConfig({ LOG_FORMAT: 'json', CURRENCY: 'eur', METRICS_TOKEN: 'a'.repeat(16) });
    assert.equal(config.logFormat, 'json');
    assert.equal(config.currency, 'EUR');
    assert.equal(loadConfig({}).currency, 'USD');
  });
});
