import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { cleanEnv } from '../helpers/clean-env.ts';
import { TestClient } from '../helpers/http-client.ts';
import { freePort } from '../helpers/network.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const execFileAsync = promisify(execFile);
const MAIN = path.join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

describe('configuration', () => {
  it('reports every bad value on its own line', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        RATE_LIMIT_RPS: '0',
        TZ: 'Mars/Olympus_Mons',
        DATABASE_URL: 'mysql://db/nativa',
        REDIS_URL: 'not a url',
        TRUST_PROXY: 'perhaps',
        LOG_LEVEL: 'loud',
        TLS_CERT: '/etc/cert.pem',
        SIGNING_SECRET: 'short',
        BODY_LIMIT_BYTES: '12',
        REVENUE_SHARE_PERCENT: '150',
        MIN_PAYOUT: '-5',
        PUBLIC_URL: 'http://ads.example',
      });
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof ConfigError);
    const names = error.problems.map((line) => /^[A-Z_]+/.exec(line)?.[0]);
    assert.deepEqual(names.sort(), [
      'BODY_LIMIT_BYTES',
      'DATABASE_URL',
      'LOG_LEVEL',
      'MIN_PAYOUT',
      'PORT',
      'PUBLIC_URL',
      'RATE_LIMIT_RPS',
      'REDIS_URL',
      'REVENUE_SHARE_PERCENT',
      'SIGNING_SECRET',
      'TLS_CERT',
      'TRUST_PROXY',
      'TZ',
    ]);
    assert.equal(error.message.split('\n').length, error.problems.length + 1);
  });

  it('has working defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8443);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.rateLimitPerSecond, 5);
    assert.equal(config.timeZone, 'UTC');
    assert.equal(config.revenueShare, 0.7);
    assert.equal(config.minPayoutMicros, 0);
    assert.equal(loadConfig({ MIN_PAYOUT: '25.5' }).minPayoutMicros, 25_500_000);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, path.resolve('data'));
  });

  it('`nativa serve` with bad values exits 2 printing one line each', async () => {
    const failure = await execFileAsync(process.execPath, [MAIN, 'serve'], {
      env: cleanEnv({ PORT: '-1', RATE_LIMIT_RPS: 'many', DATA_DIR: os.tmpdir() }),
    }).catch((error: { code: number; stderr: string }) => error);
    assert.equal((failure as { code: number }).code, 2);
    const lines = (failure as { stderr: string }).stderr.trim().split('\n');
    assert.equal(lines[0], 'nativa: invalid configuration:');
    assert.match(lines[1] ?? '', /^ {2}PORT=-1: expected an integer/);
    assert.match(lines[2] ?? '', /^ {2}RATE_LIMIT_RPS=many: expected an integer/);
    assert.equal(lines.length, 3);
  });
});

describe('OpenAPI and documentation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('serves an OpenAPI 3.1 document generated from the routes', async () => {
    const response = await server.anonymous.get('/api/openapi.json');
    assert.equal(response.status, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, '1');
    assert.ok(document.paths['/api/me'].get);
    assert.ok(document.paths['/api/admin/users'].post);
    assert.ok(
      document.paths['/api/admin/users/{id}'].get.parameters.some(
        (p: { name: string; in: string }) => p.name === 'id' && p.in === 'path',
      ),
    );
    assert.equal(document.paths['/api/openapi.json'], undefined);
    assert.deepEqual(document.components.securitySchemes.AuthToken, { type: 'apiKey', in: 'header', name: 'Auth-Token' });
    // Every reference resolves inside the document, every operation documents its answers, and
    // no OpenAPI 3.0 leftovers (`nullable`) remain.
    const text = JSON.stringify(document);
    assert.equal(text.includes('"nullable"'), false);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      assert.match(ref ?? '', /^#\//);
      const target = (ref ?? '')
        .slice(2)
        .split('/')
        .reduce((node: Record<string, unknown> | undefined, key) => node?.[key] as Record<string, unknown> | undefined, document);
      assert.ok(target, `unresolved $ref ${ref}`);
    }
    for (const [route, item] of Object.entries<Record<string, { responses?: object; summary?: string }>>(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        assert.ok(operation.responses && Object.keys(operation.responses).length > 0, `${method} ${route} has no responses`);
        assert.ok(operation.summary, `${method} ${route} has no summary`);
      }
    }
    const user = document.paths['/api/me'].get.responses['200'].content['application/json'].schema;
    assert.ok(user.properties.balance.description);
  });

  it('renders the documentation page and its assets', async () => {
    const page = await server.anonymous.get('/api/docs');
    const html = page.status === 302 ? await server.anonymous.get(page.header('location') ?? '') : page;
    assert.equal(html.status, 200);
    assert.match(html.header('content-type') ?? '', /text\/html/);
    assert.match(html.text, /swagger-ui/);
    const scripts = [...html.text.matchAll(/src="([^"]+\.js)"/g)].map((match) => match[1] ?? '');
    assert.ok(scripts.length > 0);
    for (const script of scripts) {
      const asset = await server.anonymous.get(new URL(script, `${server.url}/api/docs/`).pathname);
      assert.equal(asset.status, 200, script);
      assert.ok(asset.text.length > 1000 || script.includes('initializer'), script);
    }
    const initializer = await server.anonymous.get('/api/docs/static/swagger-initializer.js');
    assert.equal(initializer.status, 200);
    assert.match(initializer.text, /\/api\/openapi\.json/);
  });
});

describe('first start and graceful shutdown of `nativa serve`', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-serve-'));
  });
  after(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates a certificate and the operator token, finishes in-flight requests on SIGTERM, and the data survive', async () => {
    const port = await freePort();
    const env = cleanEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    const started = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    // The first-operator line follows the listening line.
    await waitFor(
      'the server to start',
      () => {
        assert.equal(started.exitCode, null, `the server exited: ${output}`);
        return output.includes('Server listening') && output.includes('operator.token');
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    assert.match(output, /created the first operator account; its token is in .*operator\.token/);
    // The new embedded database was created and migrated by a child process (`nativa migrate`).
    assert.match(output, /created the embedded database: [1-9]\d* migrations applied by a child process/);
    const tokenPath = path.join(dataDir, 'operator.token');
    assert.equal(statSync(tokenPath).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(dataDir, 'tls', 'key.pem')).mode & 0o777, 0o600);
    const token = readFileSync(tokenPath, 'utf8').trim();
    const cert = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const client = new TestClient(`https://127.0.0.1:${port}`, cert, token);
    try {
      assert.equal((await client.get('/api/me')).json().type, 'operator');
      // The first start also hands over a single-use link to choose the operator's web password.
      const linkPath = path.join(dataDir, 'operator-password.url');
      assert.equal(statSync(linkPath).mode & 0o777, 0o600);
      const link = new URL(readFileSync(linkPath, 'utf8').trim());
      assert.equal(link.pathname, '/password');
      const invitation = link.searchParams.get('token') ?? '';
      const anonymous = client.as(undefined);
      const set = await anonymous.post('/api/password-reset/confirm', {
        token: invitation,
        password: 'a long operator password',
      });
      assert.equal(set.status, 204, set.text);
      const signIn = await anonymous.post('/api/session', { login: 'operator', password: 'a long operator password' });
      assert.equal(signIn.status, 200, signIn.text);
      assert.equal(
        (await anonymous.post('/api/password-reset/confirm', { token: invitation, password: 'another password!' })).status,
        422,
      );
      // A request in flight when the signal arrives still gets its answer: half of its body is
      // sent, then (once the server has logged the request) the signal, then (once the server
      // says it is shutting down) the rest.
      const body = JSON.stringify({ type: 'advertiser', username: 'survivor', email: 'survivor@example.test' });
      const half = Math.floor(body.length / 2);
      const request = https.request(`https://127.0.0.1:${port}/api/admin/users`, {
        method: 'POST',
        ca: cert,
        headers: { 'Auth-Token': token, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        request.on('response', (incoming) => {
          let text = '';
          incoming.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
        });
        request.on('error', reject);
      });
      request.write(body.slice(0, half));
      await waitFor('the server to receive the request', () =>
        output.split('\n').some((line) => line.includes('incoming request') && line.includes('"url":"/api/admin/users"')),
      );
      started.kill('SIGTERM');
      await waitFor('the server to begin shutting down', () => output.includes('SIGTERM received'));
      request.end(body.slice(half));
      const response = await answered;
      assert.equal(response.status, 201, response.text);
    } finally {
      client.close();
    }
    assert.equal(await exited, 0, output);
    child = undefined;
    assert.match(output, /SIGTERM received, shutting down/);

    // The embedded database was closed cleanly: it reopens with the data in it.
    const database = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      const survivor = await database.db
        .selectFrom('accounts')
        .select(['kind', 'username'])
        .where('username', '=', 'survivor')
        .executeTakeFirst();
      assert.deepEqual(survivor, { kind: 'advertiser', username: 'survivor' });
      const operators = await database.db.selectFrom('accounts').select('id').where('kind', '=', 'operator').execute();
      assert.equal(operators.length, 1);
    } finally {
      await database.close();
    }
  });
});
