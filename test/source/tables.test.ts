import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

interface Ownership {
  owner: string;
  /** Files or folders (relative to src/) that may name the table too, for the reason docs/tables.md gives. */
  alsoBy: string[];
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);

/** docs/tables.md's table: each table's owning module and who else may name it. */
function ownershipOf(markdown: string): Map<string, Ownership> {
  const tables = new Map<string, Ownership>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').slice(1, -1);
    if (cells.length !== 3 || !(cells[0] as string).includes('`')) continue;
    const [owner] = ticked(cells[1] as string);
    if (owner === undefined) continue;
    for (const table of ticked(cells[0] as string)) tables.set(table, { owner, alsoBy: ticked(cells[2] as string) });
  }
  return tables;
}

/** Tables a source names: Kysely's builders (`selectFrom('x')`, joins) and raw SQL (`FROM x`, `JOIN x`, `INTO x`, `UPDATE x`). */
const KYSELY =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\(\s*'([a-z_]+)/g;
const RAW_SQL = /\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)/g;

function tablesNamed(text: string, known: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  for (const pattern of [KYSELY, RAW_SQL]) {
    for (const match of text.matchAll(pattern)) if (known.has(match[1] as string)) found.add(match[1] as string);
  }
  return found;
}

const within = (file: string, place: string) => file === place || file.startsWith(`${place}/`);

/** Every `file → table` where a file names a table neither its module owns nor docs/tables.md lets it name. */
function strayTableUses(sources: ReadonlyMap<string, string>, ownership: ReadonlyMap<string, Ownership>): string[] {
  const known = new Set(ownership.keys());
  const stray: string[] = [];
  for (const [file, text] of sources) {
    for (const table of tablesNamed(text, known)) {
      const { owner, alsoBy } = ownership.get(table) as Ownership;
      if (!within(file, owner) && !alsoBy.some((place) => within(file, place))) stray.push(`${file} → ${table}`);
    }
  }
  return stray.sort();
}

function sourcesUnder(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    sources.set(path.relative(root, file), readFileSync(file, 'utf8'));
  }
  // The table types generated from the migrations name every table.
  sources.delete('db/schema.ts');
  return sources;
}

describe('tables have owners (docs/tables.md)', () => {
  const ownership = ownershipOf(readFileSync(path.join(ROOT, 'docs/tables.md'), 'utf8'));

  it('lists every table the migrations create, each once', () => {
    const migrations = path.join(SRC, 'db/migrations');
    const created = new Set<string>();
    const dropped = new Set<string>();
    for (const name of readdirSync(migrations).sort()) {
      const text = readFileSync(path.join(migrations, name), 'utf8');
      for (const match of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/gi)) created.add(match[1] as string);
      for (const match of text.matchAll(/DROP TABLE (?:IF EXISTS )?([a-z_]+)/gi)) dropped.add(match[1] as string);
    }
    const live = [...created].filter((table) => !dropped.has(table)).sort();
    assert.deepEqual([...ownership.keys()].sort(), live);
    for (const [table, { owner }] of ownership) {
      assert.ok(readdirSync(path.join(SRC, owner)).length > 0, `${table}: no folder src/${owner}`);
    }
  });

  it('are named only by their owner and the uses the list gives reasons for', () => {
    const stray = strayTableUses(sourcesUnder(SRC), ownership);
    assert.deepEqual(
      stray,
      [],
      `tables named outside their owner (add a reason to docs/tables.md, or go through the owner):\n${stray.join('\n')}`,
    );
  });

  it('finds a table named outside its owner', () => {
    const rules = new Map([
      ['campaigns', { owner: 'modules/advertiser/campaigns', alsoBy: ['modules/serving'] }],
      ['sites', { owner: 'modules/publisher/sites', alsoBy: [] }],
    ]);
    const sources = new Map([
      ['modules/advertiser/campaigns/campaign-repository.ts', "db.selectFrom('campaigns')"],
      ['modules/serving/snapshot.ts', 'sql`SELECT id FROM campaigns`'],
      ['modules/export/export-repository.ts', "sql`... JOIN sites s ON ...` db.selectFrom('campaigns as c')"],
    ]);
    assert.deepEqual(strayTableUses(sources, rules), [
      'modules/export/export-repository.ts → campaigns',
      'modules/export/export-repository.ts → sites',
    ]);
  });
});
