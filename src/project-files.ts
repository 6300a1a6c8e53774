/**
 * Where the files the server reads at run time are (migrations, message catalogues, the hosting
 * list, the web app's build, docs), from the project's root: the same whether the server runs from
 * the TypeScript sources or from the build `npm start` runs (dist/nativa.mjs, one file, in which
 * `import.meta.dirname` is dist/ for every module).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The nearest directory at or above `start` whose package.json is Nativa's. */
function projectRootFrom(start: string): string {
  for (let directory = start; ; directory = path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'nativa') {
      return directory;
    }
    if (path.dirname(directory) === directory) throw new Error(`Nativa's package.json not found above ${start}`);
  }
}

export const PROJECT_ROOT = projectRootFrom(import.meta.dirname);

/** A path inside the project: `projectFile('src', 'db', 'migrations')`. */
export const projectFile = (...parts: string[]): string => path.join(PROJECT_ROOT, ...parts);
