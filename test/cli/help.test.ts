import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cleanEnv } from '../helpers/clean-env.ts';

const execFileAsync = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'nativa.js');

async function nativa(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], {
      env: cleanEnv({ NATIVA_TOKEN: 'nv_unused', NATIVA_URL: 'https://127.0.0.1:9' }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('nativa help, version and option errors', () => {
  it('lists every command within 100 columns', async () => {
    const { code, stdout } = await nativa(['help']);
    assert.equal(code, 0);
    const lines = stdout.split('\n');
    const widest = lines.reduce((longest, line) => (line.length > longest.length ? line : longest), '');
    assert.ok(widest.length <= 100, `${widest.length} columns: ${widest}`);
    for (const command of ['serve', 'backup FILE', 'restore FILE', 'users create', 'payouts create', 'demo']) {
      assert.ok(
        lines.some((line) => line.startsWith(`  ${command}`)),
        `${command} is listed`,
      );
    }
  });

  it('prints the package version', async () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-v', 'version']) {
      const { code, stdout } = await nativa([flag]);
      assert.equal(code, 0);
      assert.equal(stdout, `nativa ${manifest.version}\n`);
    }
  });

  it('names the option that is wrong, and changes nothing', async () => {
    const unknown = await nativa(['users', 'list', '--tpye', 'advertiser']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^nativa users list: unknown option --tpye$/m);
    assert.match(unknown.stderr, /^usage: nativa users list /m);

    const notNumber = await nativa(['payouts', 'list', '--page', 'two']);
    assert.equal(notNumber.code, 2);
    assert.match(notNumber.stderr, /--page must be a whole number, not 'two'/);

    const noValue = await nativa(['sites', 'moderate', '3', '--status']);
    assert.equal(noValue.code, 2);
    assert.match(noValue.stderr, /--status needs a value/);
  });
});
