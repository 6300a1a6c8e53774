import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './network.ts';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb + pg_ctl on a free loopback port), for tests
 * that stop and start the database under a running Nativa: the shared PostgreSQL of the machine
 * is never touched. PostgreSQL refuses to run as root, so under root the data directory belongs
 * to the `postgres` user and the binaries run as that user.
 */
export interface PrivatePostgres {
  /** The database `nativa` on this server. */
  url: string;
  port: number;
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash (no checkpoint), `fast` what a service restart does. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every one of its processes (its children: backends, checkpointer,
   * WAL writer…): a database that stops answering without closing its connections, as behind a
   * network partition or on a frozen machine. Returns the pids it stopped.
   */
  freeze(): number[];
  /** SIGCONT to the processes `freeze` stopped. */
  thaw(): void;
  /** Stops it (if running) and deletes its data directory. */
  destroy(): Promise<void>;
}

/** The postmaster's pid (the first line of postmaster.pid) and its children's, read from /proc. */
export function serverProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) children.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return [postmaster, ...children];
}

/** The directory of `pg_ctl` and `initdb`: PG_BIN, Debian's newest /usr/lib/postgresql/N/bin, or PATH. */
export function findBinaries(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(path.join(debian, version, 'bin'));
  }
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) if (directory) candidates.push(directory);
  return candidates.find((directory) => existsSync(path.join(directory, 'pg_ctl')) && existsSync(path.join(directory, 'initdb')));
}

/** The uid and gid to run PostgreSQL as: the `postgres` user under root, else this process's own. */
export function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Why no private PostgreSQL can be started here, or undefined when one can. */
export function privatePostgresMissing(): string | undefined {
  if (findBinaries() === undefined) return 'the PostgreSQL server binaries (initdb, pg_ctl) are not installed (set PG_BIN)';
  if (process.getuid?.() === 0 && runAs() === undefined)
    return 'running as root and there is no postgres user to run PostgreSQL as';
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = findBinaries();
  if (bin === undefined) throw new Error(privatePostgresMissing());
  const user = runAs();
  const options = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nativa-private-pg-'));
  if (user !== undefined) chownSync(dataDir, user.uid, user.gid);
  const port = await freePort();
  const tool = (name: string, args: string[]) => run(path.join(bin, name), args, { ...options, cwd: dataDir });
  await tool('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // The socket lives in the data directory (the default one may not be writable). Nothing here
  // has to survive a crash of the machine, so nothing waits for fsync; a crash of PostgreSQL
  // itself (`-m immediate`) keeps every commit, since the kernel still holds what was written.
  // (synchronous_commit stays on: with it off, a commit acknowledged just before the crash is lost.)
  appendFileSync(
    path.join(dataDir, 'postgresql.conf'),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dataDir}'`,
      'fsync = off',
      'full_page_writes = off',
      'shared_buffers = 32MB',
      'max_connections = 40',
      '',
    ].join('\n'),
  );
  const logFile = path.join(dataDir, 'server.log');
  let running = false;
  const start = async () => {
    await tool('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '30', 'start']);
    running = true;
  };
  const stop = async (mode: 'immediate' | 'fast' = 'fast') => {
    if (!running) return;
    await tool('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
    running = false;
  };
  await start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE nativa');
  await admin.end();
  let frozen: number[] = [];
  const signal = (pids: number[], name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // Gone already.
      }
    }
  };
  const thaw = () => {
    signal(frozen, 'SIGCONT');
    frozen = [];
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/nativa`,
    port,
    stop,
    start,
    freeze() {
      // The postmaster first, so it starts no new backend while its children are being stopped.
      const [postmaster, ...rest] = serverProcesses(dataDir);
      if (postmaster !== undefined) signal([postmaster], 'SIGSTOP');
      frozen = [...new Set([...(postmaster === undefined ? [] : [postmaster]), ...rest, ...serverProcesses(dataDir).slice(1)])];
      signal(frozen, 'SIGSTOP');
      return frozen;
    },
    thaw,
    async destroy() {
      thaw();
      await stop('immediate').catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
