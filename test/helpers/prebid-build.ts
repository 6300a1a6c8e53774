import path from 'node:path';
import { build, type Plugin } from 'vite';

const ROOT = path.join(import.meta.dirname, '..', '..');
const ADAPTER = path.join(ROOT, 'integrations', 'prebid', 'nativaBidAdapter.js');
const PREBID_SOURCES = path.join(ROOT, 'node_modules', 'prebid.js', 'dist', 'src', 'src');

/**
 * Builds Prebid.js from its npm package with Nativa's adapter into one script, the way a publisher
 * bundles Prebid as a dependency (`import pbjs from 'prebid.js'` and the adapter module). The
 * adapter is written as a Prebid module (`../src/adapters/bidderFactory.js`, as in Prebid's
 * modules/ folder); those imports resolve to the package's compiled sources.
 */
export async function buildPrebidWithNativa(): Promise<string> {
  const entry: Plugin = {
    name: 'nativa-prebid-entry',
    resolveId(source, importer) {
      if (source === 'virtual:prebid-entry') return '\0prebid-entry';
      if (importer === ADAPTER && source.startsWith('../src/')) return path.join(PREBID_SOURCES, source.slice('../src/'.length));
      return undefined;
    },
    load(id) {
      if (id !== '\0prebid-entry') return undefined;
      return `import pbjs from 'prebid.js';\nimport ${JSON.stringify(ADAPTER)};\npbjs.processQueue();\n`;
    },
  };
  const output = await build({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    plugins: [entry],
    build: {
      write: false,
      minify: false,
      target: 'es2020',
      rollupOptions: { input: 'virtual:prebid-entry', output: { format: 'iife' } },
    },
  });
  const outputs = [output].flat() as { output: { type: string; code?: string }[] }[];
  const chunk = outputs[0]?.output.find((file) => file.type === 'chunk');
  if (chunk?.code === undefined) throw new Error('the Prebid build produced no script');
  return chunk.code;
}
