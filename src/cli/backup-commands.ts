import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { type Command, operatorApi, required, UsageError } from './command.ts';

/**
 * Backups of the whole database. The embedded PGlite database is copied by the running server
 * (POST /api/admin/backup, between two transactions), or, when no server answers, straight from
 * DATA_DIR/pglite. PostgreSQL (DATABASE_URL) goes through pg_dump and pg_restore in their custom
 * format. A restore never overwrites: it fills an empty data directory or database.
 */
export const backupCommands: Command[] = [
  {
    name: 'backup',
    usage: 'backup FILE',
    summary: 'Write a consistent copy of the database to FILE (PGlite: from the running server; PostgreSQL: pg_dump).',
    async run({ args, json }) {
      const file = path.resolve(required(args.words[0], 'FILE'));
      const config = loadConfig();
      let source: string;
      if (config.databaseUrl) {
        await runTool('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, `--dbname=${config.databaseUrl}`]);
        source = 'pg_dump';
      } else {
        const fromServer = await backupFromServer();
        if (fromServer !== undefined) {
          writeFileSync(file, fromServer, { mode: 0o600 });
          source = 'running server';
        } else {
          const database = await openDatabase({ databaseUrl: undefined, dataDir: config.dataDir });
          try {
            const archive = await database.backup?.();
            if (archive === undefined) throw new Error('this database cannot be backed up here');
            writeFileSync(file, Buffer.from(await archive.arrayBuffer()), { mode: 0o600 });
          } finally {
            await database.close();
          }
          source = `${config.dataDir}/pglite (no server answered)`;
        }
      }
      report(json, { file, source }, `backup written to ${file} (from ${source})`);
    },
  },
  {
    name: 'restore',
    usage: 'restore FILE',
    summary: 'Restore a backup into an empty DATA_DIR (server stopped) or an empty DATABASE_URL database.',
    async run({ args, json }) {
      const file = path.resolve(required(args.words[0], 'FILE'));
      if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
      const config = loadConfig();
      if (config.databaseUrl) {
        await runTool('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${config.databaseUrl}`, file]);
        report(json, { file, target: 'DATABASE_URL' }, `restored ${file} into DATABASE_URL (pg_restore)`);
        return;
      }
      const dataDir = path.join(config.dataDir, 'pglite');
      if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
        throw new UsageError(`${dataDir} is not empty: stop the server and move it away first (a restore never overwrites)`);
      }
      mkdirSync(dataDir, { recursive: true });
      const pglite = await PGlite.create({ dataDir, loadDataDir: new Blob([readFileSync(file)]) });
      const accounts = await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
      await pglite.close();
      const count = accounts.rows[0]?.n ?? 0;
      report(json, { file, target: dataDir, accounts: count }, `restored ${file} into ${dataDir} (${count} accounts)`);
    },
  },
];

/** The running server's copy, or undefined when no server answers at NATIVA_URL. */
async function backupFromServer(): Promise<Buffer | undefined> {
  let api: ReturnType<typeof operatorApi>;
  try {
    api = operatorApi();
  } catch {
    return undefined;
  }
  try {
    const { data } = await api.client.POST('/api/admin/backup', { parseAs: 'arrayBuffer' });
    return Buffer.from(data ?? new ArrayBuffer(0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return undefined;
    throw error;
  } finally {
    api.close();
  }
}

function runTool(tool: string, toolArgs: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, toolArgs, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' ? new UsageError(`${tool} is not installed (PostgreSQL's client tools)`) : error);
    });
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${tool} exited with status ${code}`));
    });
  });
}

function report(json: boolean, result: Record<string, unknown>, line: string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${line}\n`);
}
