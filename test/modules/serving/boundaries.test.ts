import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// The serving module's layout (docs/serving.md, Code layout; docs/adr/0026) as imports: serving
// stands apart from the account API, and a stage reaches another only through its entry files.

const SRC = path.join(import.meta.dirname, '../../../src');
const SERVING = path.join(SRC, 'modules/serving');

/** Modules of the account API, which serving never imports (STYLE.md: the serving path stands apart). */
const ACCOUNT_API = ['accounts', 'advertiser', 'publisher', 'refunds', 'export', 'images', 'mail', 'backup', 'web-app'];

/** Each stage's public surface: the files another stage, the engine or the rest of src may import. */
const ENTRY_FILES: Record<string, readonly string[]> = {
  snapshot: ['snapshot.ts', 'snapshot-keeper.ts'],
  selection: [
    'select-teasers.ts',
    'judgement.ts',
    'auction.ts',
    'eligibility.ts',
    'viewer-filters.ts',
    'schedule.ts',
    'frequency.ts',
    'page-views.ts',
    'agent-targets.ts',
    'pacing.ts',
  ],
  tracking: [
    'tracker.ts',
    'teaser-token.ts',
    'click-token.ts',
    'view-token.ts',
    'visitor.ts',
    'visitor-id.ts',
    'audiences.ts',
    'click-target.ts',
    'invalid-traffic.ts',
    'networks.ts',
    'conversion-cookie.ts',
    'postback-key.ts',
  ],
  billing: ['click-billing.ts', 'acceptance.ts', 'settlement.ts', 'logged-settlement.ts', 'unsettled-spend.ts'],
  explain: ['explain-impression.ts', 'explain-routes.ts'],
  consent: ['consent.ts', 'consent-query.ts'],
  'event-log': ['event-log.ts', 'logged-tracking.ts', 'settle-views.ts'],
  openrtb: ['openrtb-routes.ts'],
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The files a source file imports (relative imports only, resolved). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((match) =>
    path.resolve(path.dirname(file), match[1] as string),
  );
}

/** `snapshot` for src/modules/serving/snapshot/x.ts, '' for the serving folder's own files, undefined outside serving. */
function stageOf(file: string): string | undefined {
  const relative = path.relative(SERVING, file);
  if (relative.startsWith('..')) return undefined;
  const parts = relative.split(path.sep);
  return parts.length === 1 ? '' : parts[0];
}

describe('serving module boundaries', () => {
  const files = sourceFiles(SRC);

  it('serving imports none of the account-API modules', () => {
    const offending = files
      .filter((file) => stageOf(file) !== undefined)
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => ACCOUNT_API.some((module) => target.startsWith(path.join(SRC, 'modules', module) + path.sep)))
          .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
      );
    assert.deepEqual(offending, []);
  });

  it('a stage is reached from outside it only through its entry files', () => {
    const offending = files.flatMap((file) =>
      importsOf(file).flatMap((target) => {
        const stage = stageOf(target);
        if (stage === undefined || stage === '' || stage === stageOf(file)) return [];
        const entries = ENTRY_FILES[stage];
        assert.ok(entries !== undefined, `unknown serving folder ${stage}`);
        return entries.includes(path.basename(target)) ? [] : [`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`];
      }),
    );
    assert.deepEqual(offending, []);
  });

  it('every entry file exists', () => {
    for (const [stage, entries] of Object.entries(ENTRY_FILES)) {
      for (const entry of entries) assert.ok(files.includes(path.join(SERVING, stage, entry)), `${stage}/${entry}`);
    }
  });
});
