import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildServer } from '../../scripts/build-server.ts';
import { freePort, startChildServer, stopChild } from '../helpers/child-server.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
/** A build of this test's own, so that it never races `npm start` or another run over dist/nativa.mjs. */
const BUILD = path.join('dist', `nativa-test-${process.pid}.mjs`);

function get(port: number, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(`https://127.0.0.1:${port}${url}`, { rejectUnauthorized: false, headers }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

// `npm start` runs the server from one bundled file (scripts/build-server.ts), in which every
// module's import.meta.dirname is dist/: the files it reads at run time must still be found.
describe('the built server (npm start)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-built-'));
  let port = 0;
  let child: Awaited<ReturnType<typeof startChildServer>> | undefined;

  before(async () => {
    await buildServer(path.join(ROOT, BUILD));
    port = await freePort();
    // A first start on the embedded database: every migration, the hosting list, both message catalogues.
    child = await startChildServer({ dataDir, port, databaseUrl: '', entry: BUILD, startTimeoutMs: 120_000 });
  });

  after(async () => {
    if (child !== undefined) await stopChild(child, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(path.join(ROOT, BUILD), { force: true });
  });

  it('migrates a new database and answers the API in both languages', async () => {
    const english = await get(port, '/api/me', { Accept: 'application/json' });
    assert.equal(english.status, 401);
    const russian = await get(port, '/api/me', { Accept: 'application/json', 'Accept-Language': 'ru' });
    assert.equal(russian.status, 401);
    assert.notEqual(JSON.parse(russian.body).message, JSON.parse(english.body).message);
    assert.match(JSON.parse(russian.body).message, /[а-яё]/i);
  });

  it('serves the web app and the documentation', async () => {
    const page = await get(port, '/', { Accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.match(page.body, /<div id="root">/);
    const docs = await get(port, '/api/docs/json');
    assert.equal(docs.status, 200);
  });

  it('prints the version from package.json', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, BUILD), '--version']);
    assert.match(stdout, /^nativa \d+\.\d+\.\d+/);
  });
});
