/**
 * `npm run docs:config`: writes docs/configuration.md's table of environment variables from
 * src/environment-variables.ts, between its two markers. test/config/configuration-doc.test.ts
 * fails while the page is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { variablesTable } from '../src/environment-variables.ts';

export const CONFIGURATION_PAGE = path.join(import.meta.dirname, '..', 'docs', 'configuration.md');
const START = '<!-- variables: written by `npm run docs:config` from src/environment-variables.ts -->';
const END = '<!-- end of variables -->';

/** The page with its table replaced by the one the code describes. */
export function configurationPage(current: string): string {
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CONFIGURATION_PAGE}: the markers around the table are missing`);
  return `${current.slice(0, start + START.length)}\n${variablesTable()}\n${current.slice(end)}`;
}

if (import.meta.main) {
  writeFileSync(CONFIGURATION_PAGE, configurationPage(readFileSync(CONFIGURATION_PAGE, 'utf8')));
  console.log(`wrote ${path.relative(process.cwd(), CONFIGURATION_PAGE)}`);
}
