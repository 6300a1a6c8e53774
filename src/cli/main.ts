import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { ChangedMigrationError, migrate } from '../db/migrate.ts';
import { createLogger } from '../logger.ts';
import { Networks, networkSources } from '../modules/serving/index.ts';
import { projectFile } from '../project-files.ts';
import { closeOnSignals, startServer } from '../server.ts';
import { advertiserCommands } from './advertiser-commands.ts';
import { ApiError, describeApiError } from './api.ts';
import { parseArgs } from './args.ts';
import { backupCommands } from './backup-commands.ts';
import { type Command, checkOptions, operatorApi, UsageError } from './command.ts';
import { demoCommand } from './demo.ts';
import { ivtCommands } from './ivt-commands.ts';
import { operatorCommands } from './operator-commands.ts';
import { publisherCommands } from './publisher-commands.ts';
import { createsEmbeddedDatabase, migrateInChildProcess, settleStartMemory } from './start-memory.ts';

const serverCommands: Command[] = [
  {
    name: 'serve',
    usage: 'serve',
    summary: 'Start the HTTPS API server (configuration from the environment).',
    async run() {
      const config = loadConfig();
      // A first start of the embedded installation creates and migrates its database in a child
      // process (this file, `nativa migrate`): the server does not keep that work's memory.
      if (createsEmbeddedDatabase(config)) {
        const applied = await migrateInChildProcess(fileURLToPath(import.meta.url));
        createLogger(config, undefined).info(
          `created the embedded database: ${applied.length} migrations applied by a child process`,
        );
      }
      // The ASN table (about a second to read) is read before the server listens, not on the
      // first visitor's request; test servers, which see only loopback, never read it.
      new Networks(networkSources(config)).load();
      const server = await startServer(config);
      closeOnSignals(server);
      settleStartMemory();
    },
  },
  {
    name: 'migrate',
    usage: 'migrate',
    summary: 'Apply pending database migrations and exit.',
    async run({ json }) {
      const config = loadConfig();
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const applied = await migrate(database);
        if (json) process.stdout.write(`${JSON.stringify({ applied })}\n`);
        else process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      } finally {
        await database.close();
      }
    },
  },
];

/** Every command of `nativa`; modules append theirs here. */
export const commands: Command[] = [
  ...serverCommands,
  ...backupCommands,
  ...operatorCommands,
  ...advertiserCommands,
  ...publisherCommands,
  ...ivtCommands,
  demoCommand,
];

const HELP_WIDTH = 100;

/** Words of `text` on lines no wider than HELP_WIDTH, each starting with `indent`. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(' ')) {
    if (line.trim() !== '' && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = `${indent}  ${word}`;
    } else line = line.trim() === '' ? `${indent}${word}` : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** Every command, its usage then its summary, fitting a 100-column terminal. */
export function help(): string {
  return [
    'Usage: nativa COMMAND [options] [--json]      nativa --version',
    '',
    ...commands.flatMap((command) => [...wrap(command.usage, '  '), ...wrap(command.summary, '      ')]),
    '',
    'Operator commands talk to NATIVA_URL (default https://localhost:8443) with NATIVA_TOKEN',
    '(default: the token in DATA_DIR/operator.token).',
    '',
  ].join('\n');
}

function version(): string {
  const manifest = JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

export async function runCli(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.flags.has('version') || args.words[0] === '-v' || args.words[0] === 'version') {
    process.stdout.write(`nativa ${version()}\n`);
    return 0;
  }
  if (args.words.length === 0 || args.flags.has('help') || args.flags.has('h') || args.words[0] === 'help') {
    process.stdout.write(help());
    return 0;
  }
  // The longest command name that the words start with wins (`users create` before `users`).
  const command = [...commands]
    .sort((a, b) => b.name.length - a.name.length)
    .find((candidate) => {
      const parts = candidate.name.split(' ');
      return parts.every((part, index) => args.words[index] === part);
    });
  if (command === undefined) {
    process.stderr.write(`nativa: unknown command '${args.words.join(' ')}'\n\n${help()}`);
    return 2;
  }
  const rest = { ...args, words: args.words.slice(command.name.split(' ').length) };
  let api: ReturnType<typeof operatorApi> | undefined;
  try {
    checkOptions(command, args);
    await command.run({
      args: rest,
      json: args.flags.has('json'),
      client: () => {
        api ??= operatorApi();
        return api.client;
      },
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`nativa ${command.name}: ${error.message}\nusage: nativa ${command.usage}\n`);
      return 2;
    }
    // A changed migration is the installation's error, like a bad setting: nothing was changed.
    if (error instanceof ConfigError || error instanceof ChangedMigrationError) {
      process.stderr.write(`nativa: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`nativa ${command.name}: ${describeApiError(error)}\n`);
      return 1;
    }
    process.stderr.write(`nativa ${command.name}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    api?.close();
  }
}

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2));
  if (code !== 0 || !['serve', 'demo'].includes(process.argv[2] ?? '')) process.exitCode = code;
}
