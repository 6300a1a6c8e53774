#!/usr/bin/env node
// The CLI is TypeScript run directly by Node 24 (type stripping). Node 24 comes as a dependency
// (the `node` package), so on an older Node this file hands the command over to that binary
// instead of failing on the `.ts` import; this file itself must therefore parse on Node 20.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const major = Number(process.versions.node.split('.')[0]);

if (major >= 24) {
  const { runCli } = await import('../src/cli/main.ts');
  process.exitCode = await runCli(process.argv.slice(2));
} else {
  const node = packagedNode();
  if (node === undefined || process.env.NATIVA_NODE_REEXEC === '1') {
    process.stderr.write(
      `nativa: needs Node 24 (this is ${process.version}); run \`npm install\` in the package to fetch it, or install Node 24\n`,
    );
    process.exitCode = 2;
  } else {
    const child = spawn(node, [process.argv[1], ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, NATIVA_NODE_REEXEC: '1' },
    });
    // The child is the server: signals sent to this process (systemd, Ctrl-C) go on to it.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
    child.on('exit', (code, signal) => {
      process.exitCode = code ?? (signal === null ? 1 : 128);
    });
  }
}

/** The Node 24 binary installed by the `node` dependency, wherever npm placed it. */
function packagedNode() {
  try {
    const nodePackage = dirname(createRequire(import.meta.url).resolve('node/package.json'));
    const binary = join(nodePackage, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
