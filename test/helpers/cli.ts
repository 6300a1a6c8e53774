import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from './server.ts';

/**
 * A fresh DATA_DIR for the CLI that trusts the test server: the CLI trusts the certificate it
 * finds in DATA_DIR/tls, as it does for a local server. The caller removes it.
 */
export function cliDataDir(server: TestServer): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-cli-'));
  mkdirSync(path.join(dataDir, 'tls'));
  writeFileSync(path.join(dataDir, 'tls', 'cert.pem'), server.tls.cert);
  return dataDir;
}
