import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { APP_PATHS } from '../../src/modules/web-app/web-app-routes.ts';

/**
 * The web app's shape (docs/web-account.md, "How the app is laid out"): one route table
 * (web/src/routes.tsx) loads every page; pages sit in a folder per area and import shared parts,
 * never another page nor another area's parts.
 */
const SRC = path.join(import.meta.dirname, '..', '..', 'web', 'src');
const ROUTE_TABLE = path.join(SRC, 'routes.tsx');
const PAGES = path.join(SRC, 'pages');
const AREAS = ['account', 'advertiser', 'publisher', 'operator', 'shared'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every relative module a file imports (statically, for its types, or dynamically), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s*'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s*'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier));
}

/** The page files: those the route table loads. */
function pageFiles(): Set<string> {
  return new Set(importsOf(ROUTE_TABLE).filter((file) => file.startsWith(`${PAGES}${path.sep}`)));
}

/** The area of a file under pages/ (`advertiser`, ...), or null for a file outside pages/. */
function areaOf(file: string): string | null {
  const relative = path.relative(PAGES, file);
  return relative.startsWith('..') ? null : (relative.split(path.sep)[0] ?? null);
}

const name = (file: string) => path.relative(SRC, file);

/** What breaks the layout: every import of a page outside the route table, every reach into another area. */
function violations(): string[] {
  const pages = pageFiles();
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    if (file === ROUTE_TABLE) continue;
    const area = areaOf(file);
    for (const target of importsOf(file)) {
      const targetArea = areaOf(target);
      if (pages.has(target)) found.push(`${name(file)} imports the page ${name(target)}`);
      else if (targetArea !== null && area === null) found.push(`${name(file)} (outside pages/) imports ${name(target)}`);
      else if (targetArea !== null && targetArea !== area && targetArea !== 'shared')
        found.push(`${name(file)} imports ${name(target)} of another area`);
    }
  }
  return found;
}

describe('the web app’s layout', () => {
  it('keeps every page in an area folder, each loaded by the route table', () => {
    const pages = pageFiles();
    assert.ok(pages.size >= 20, `the route table loads ${pages.size} pages`);
    for (const page of pages) {
      assert.ok(existsSync(page), `${name(page)} exists`);
      assert.ok(AREAS.includes(areaOf(page) ?? ''), `${name(page)} is in one of pages/{${AREAS.join(',')}}`);
    }
    for (const entry of readdirSync(PAGES, { withFileTypes: true }))
      assert.ok(entry.isDirectory() && AREAS.includes(entry.name), `pages/${entry.name} is an area folder`);
  });

  it('has no page import another page, nor any file reach into another area’s pages', () => {
    assert.deepEqual(violations(), []);
  });

  it('builds every query key with a key factory, none by hand', () => {
    // A key written in a page drifts from the one its invalidation names: the factories
    // (web/src/query-keys.ts and each area's *-keys.ts) are the only place keys are spelled out.
    const handWritten = /queryKey:\s*\[|QueryData(?:<[^>]*>)?\(\s*\[/;
    const pages = sourceFiles(SRC).filter((file) => !/(?:^|-)keys\.ts$/.test(path.basename(file)));
    assert.ok(pages.length >= 20, `${pages.length} files read`);
    assert.deepEqual(pages.filter((file) => handWritten.test(readFileSync(file, 'utf8'))).map(name), []);
  });

  it('lets the server answer every address of the route table with the app', () => {
    const table = readFileSync(ROUTE_TABLE, 'utf8');
    const paths = [...table.matchAll(/\bpath: '([^']+)'/g)].map((match) => match[1] ?? '');
    assert.ok(paths.length >= 20, `the route table has ${paths.length} addresses`);
    const served = APP_PATHS.map((pattern) => new RegExp(`^${pattern.replace('*', '[^?#]+')}$`));
    for (const route of paths) {
      const example = route.replaceAll(':id', '12');
      assert.ok(
        served.some((pattern) => pattern.test(example)),
        `${route} is in APP_PATHS (src/modules/web-app)`,
      );
    }
  });
});
