import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONFIGURATION_PAGE, configurationPage } from '../../scripts/generate-configuration-doc.ts';
import { loadConfig } from '../../src/config.ts';
import { VARIABLES } from '../../src/environment-variables.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');

describe('docs/configuration.md', () => {
  it('holds the table the code reads its variables with (npm run docs:config writes it)', () => {
    const current = readFileSync(CONFIGURATION_PAGE, 'utf8');
    assert.equal(current, configurationPage(current), 'docs/configuration.md is stale: run `npm run docs:config`');
  });

  it('describes every variable .env.example sets or mentions', () => {
    const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const named = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1] ?? '');
    assert.ok(named.length > 20);
    assert.deepEqual(
      named.filter((name) => !(name in VARIABLES)),
      [],
    );
  });

  it('reads each number within the bounds the page states and refuses one past them', () => {
    for (const [name, variable] of Object.entries(VARIABLES)) {
      const bounds = variable.range?.match(/^(\d+) to (\d+)$/);
      if (!bounds) continue;
      const [, min, max] = bounds;
      assert.doesNotThrow(() => loadConfig({ [name]: max }), name);
      assert.throws(() => loadConfig({ [name]: String(Number(max) + 1) }), new RegExp(`${name}=`), name);
      if (Number(min) > 0) assert.throws(() => loadConfig({ [name]: String(Number(min) - 1) }), new RegExp(`${name}=`), name);
    }
  });
});
