import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { currentDocument } from './openapi-document.ts';

/**
 * `npm run lint:openapi`: writes the OpenAPI document the current code serves to
 * test-results/openapi.json (not committed; .redocly.lint-ignore.yaml names its exceptions by
 * that path) and lints it with the rules of redocly.yaml; exits with the linter's status.
 */
const root = path.join(import.meta.dirname, '..', '..');
const file = path.join('test-results', 'openapi.json');
mkdirSync(path.join(root, 'test-results'), { recursive: true });
writeFileSync(path.join(root, file), JSON.stringify(await currentDocument(), null, 2));
const cli = path.join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const lint = spawnSync(process.execPath, [cli, 'lint', file, '--config', 'redocly.yaml'], {
  cwd: root,
  stdio: 'inherit',
  // No usage report and no update check: the lint needs no network.
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
process.exitCode = lint.status ?? 1;
