import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Networks } from '../../src/modules/serving/tracking/networks.ts';
import { cleanEnv } from '../helpers/clean-env.ts';

const execFileAsync = promisify(execFile);
const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'nativa.js');

describe('nativa ivt update-lists', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'nativa-ivt-lists-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const dataDir = path.join(folder, 'data');

  async function nativa(args: string[]) {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], {
        env: cleanEnv({ DATA_DIR: dataDir }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  // A table of 1200 ranges: 10.0.0.0/24 ... (private, but the table does not care), and one IPv6 range.
  const v4 = Array.from(
    { length: 1200 },
    (_, n) => `20.${n >> 8}.${n & 255}.0,20.${n >> 8}.${n & 255}.255,${64_500 + (n % 3)},Example`,
  );
  const asnV4 = path.join(folder, 'asn-ipv4.csv');
  const asnV6 = path.join(folder, 'asn-ipv6.csv');
  const hosting = path.join(folder, 'hosting.tsv');
  writeFileSync(asnV4, `${v4.join('\n')}\n`);
  writeFileSync(asnV6, '2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,64502,"Example, Inc."\n');
  writeFileSync(hosting, '# test\nasn\tname\n64501\tExample cloud\n');

  it('refuses a file with a line that is not a range, installing nothing', async () => {
    const broken = path.join(folder, 'broken.csv');
    writeFileSync(broken, `${v4.join('\n')}\n1.2.3,1.2.3.255,5\n`);
    const result = await nativa(['ivt', 'update-lists', '--asn', broken]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /broken\.csv:1201/);
    assert.equal(existsSync(path.join(dataDir, 'ivt', 'asn.csv')), false);
  });

  it('checks and installs both lists into DATA_DIR/ivt, where the server reads them', async () => {
    const result = await nativa(['ivt', 'update-lists', '--asn', `${asnV4},${asnV6}`, '--hosting', hosting, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).ranges, 1201);
    const installed = path.join(dataDir, 'ivt', 'asn.csv');
    assert.equal(readFileSync(installed, 'latin1').split('\n').filter(Boolean).length, 1201);
    const networks = new Networks({ asnFiles: [installed], hostingFile: path.join(dataDir, 'ivt', 'hosting-asns.tsv') });
    assert.deepEqual(networks.of('20.0.1.7'), { asn: 64_501, hosting: true });
    assert.deepEqual(networks.of('20.0.2.7'), { asn: 64_502, hosting: false });
    assert.deepEqual(networks.of('2001:db8:1::5'), { asn: 64_502, hosting: false });
    assert.deepEqual(networks.of('21.0.0.1'), { asn: 0, hosting: false });
  });
});
