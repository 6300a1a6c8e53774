import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Citations of what the repository does not hold: a design document, numbered items of an issue
 * tracker, sections of the platform's specification. The repository states its decisions itself
 * (docs/decisions.md, docs/adr/), so a reader never needs a page it cannot open.
 */
const OUTSIDE_CITATIONS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'a design document', pattern: /\bDESIGN\.md\b/i },
  { name: 'a tracker item', pattern: /\bissues?(?:\s+#?|\s*#)\d+/i },
  { name: 'a section of the specification', pattern: /\bspec(?:ification)?\s*§/i },
];

/**
 * Places that keep their wording: landed migrations are history and checksummed (docs/adr/0008),
 * and the rest are installed or built, not written here.
 */
const KEPT = ['src/db/migrations/', 'node_modules/', 'test-results/', 'web/dist/'];

/** Every `file:line: what` where a text cites something outside the repository. */
function outsideCitations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const { name, pattern } of OUTSIDE_CITATIONS) {
      const global = new RegExp(pattern.source, `${pattern.flags}g`);
      for (const match of text.matchAll(global)) {
        const line = text.slice(0, match.index).split('\n').length;
        found.push(`${file}:${line}: ${name} (${match[0].replace(/\s+/g, ' ')})`);
      }
    }
  }
  return found.sort();
}

/** The text of every tracked file outside KEPT; binary files (a NUL byte) are left out. */
function trackedTexts(): Map<string, string> {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const texts = new Map<string, string>();
  for (const file of listing.split('\0')) {
    if (file === '' || KEPT.some((place) => file.startsWith(place))) continue;
    const bytes = readFileSync(path.join(ROOT, file));
    if (bytes.includes(0)) continue;
    texts.set(file, bytes.toString('utf8'));
  }
  return texts;
}

// The examples are assembled from parts so that this file does not cite anything itself.
const cite = (...parts: string[]) => parts.join('');

describe('citations of pages outside the repository', () => {
  it('are found in every spelling, across a line break, and told apart from ordinary words', () => {
    const files = new Map([
      ['a.md', cite('The API follows ', 'DESIGN', '.md §2.')],
      ['b.ts', cite('// Goal (', 'issue', ' 17): p99 < 50 ms.\n/** ', 'Issue', ' #30 item 9. */')],
      ['c.md', cite('(extension, ', 'issue', '\n  30; see below) and ', 'issues', ' 26 and 31')],
      ['d.ts', cite('/** Blocks of the publisher API (', 'spec', ' §4.2). */')],
      ['e.ts', 'const issued = issueToken(db, 1); // the issue is in the audit trail; issuer 2, tissue 3'],
    ]);
    assert.deepEqual(outsideCitations(files), [
      cite('a.md:1: a design document (', 'DESIGN', '.md)'),
      cite('b.ts:1: a tracker item (', 'issue', ' 17)'),
      cite('b.ts:2: a tracker item (', 'Issue', ' #30)'),
      cite('c.md:1: a tracker item (', 'issue', ' 30)'),
      cite('c.md:2: a tracker item (', 'issues', ' 26)'),
      cite('d.ts:1: a section of the specification (', 'spec', ' §)'),
    ]);
  });

  it('appear in no tracked file outside the landed migrations', () => {
    const files = trackedTexts();
    assert.ok(files.has('docs/decisions.md') && files.has('src/app.ts'), 'git ls-files lists the repository');
    const found = outsideCitations(files);
    assert.deepEqual(found, [], `state the decision in place or link a page of docs/ instead:\n${found.join('\n')}`);
  });
});
