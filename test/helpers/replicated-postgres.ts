import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './network.ts';
import { findBinaries, privatePostgresMissing, runAs, serverProcesses } from './private-postgres.ts';
import { waitFor } from './wait.ts';

const run = promisify(execFile);

/**
 * A primary with a synchronous streaming standby, both of the test's own (initdb, pg_basebackup
 * -R and pg_ctl on free loopback ports, as private-postgres.ts does for one server), behind one
 * address that moves: a TCP proxy in the test's process standing for HAProxy or a virtual IP. The
 * failover tests kill the primary, promote the standby and move the address; the shared
 * PostgreSQL of the machine is never touched, and only what this helper started is stopped.
 */

/** The name the standby gives itself, which the primary's synchronous_standby_names waits for. */
const STANDBY_NAME = 'nativa_standby';
/** How long a server of the pair may take to reach a state (a start on a busy machine). */
const SERVER_WAIT = { timeoutMs: 30_000, intervalMs: 100 };

/** Why a replicated pair cannot be started here, or undefined when it can. */
export function replicatedPostgresMissing(): string | undefined {
  const missing = privatePostgresMissing();
  if (missing !== undefined) return missing;
  const bin = findBinaries();
  if (bin === undefined || !existsSync(path.join(bin, 'pg_basebackup'))) return 'pg_basebackup is not installed (set PG_BIN)';
  return undefined;
}

/** One PostgreSQL server of the pair: its port and data directory, and whether it runs. */
export interface PostgresNode {
  port: number;
  dataDir: string;
  running: boolean;
}

/**
 * The address that moves: accepts on `port` and forwards each connection to the server it points
 * at when the connection is made. `pointAt` moves it and cuts every connection it carries, as a
 * moved virtual IP or an HAProxy backend marked down (`on-marked-down shutdown-sessions`) does.
 */
export interface MovingAddress {
  port: number;
  target: number;
  pointAt(port: number): void;
  /**
   * The next statement whose text holds `text` runs, and its answer is lost: the connection is
   * cut when the server's first bytes after it come back (for a statement outside a transaction,
   * after its commit), as a failover that cuts a connection between a commit and its answer.
   * Resolves once it has cut.
   */
  cutAnswerTo(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function startMovingAddress(target: number): Promise<MovingAddress> {
  const open = new Set<net.Socket>();
  let current = target;
  let armed: { text: string; cut(): void } | undefined;
  const server = net.createServer((client) => {
    const upstream = net.connect(current, '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
    let losing: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes(armed.text)) {
        losing = armed.cut;
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (losing === undefined) {
        client.write(chunk);
        return;
      }
      cut();
      losing();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    get target() {
      return current;
    },
    cutAnswerTo(text: string) {
      return new Promise<void>((resolve) => {
        armed = { text, cut: resolve };
      });
    },
    pointAt(next: number) {
      current = next;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReplicatedPostgres {
  /** The database `nativa` through the moving address. */
  url: string;
  address: MovingAddress;
  primary: PostgresNode;
  standby: PostgresNode;
  /** SIGKILL to the primary's postmaster and every process of it: the machine died. */
  killPrimary(): void;
  /** `pg_ctl promote` on the standby; resolves once it takes writes. */
  promoteStandby(): Promise<void>;
  /**
   * The old primary's place taken by a fresh standby of the promoted server (pg_basebackup -R from
   * it, on the old primary's port): a read-only server, where the address may point for a moment.
   */
  rejoinOldPrimaryAsStandby(): Promise<void>;
  /** Stops every server this helper started and deletes their data; closes the address. */
  destroy(): Promise<void>;
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const bin = findBinaries();
  if (bin === undefined) throw new Error(replicatedPostgresMissing());
  const user = runAs();
  const options = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const tool = (name: string, args: string[]) => run(path.join(bin, name), args, { ...options, cwd: os.tmpdir() });
  const newDirectory = () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-replicated-pg-'));
    if (user !== undefined) chownSync(directory, user.uid, user.gid);
    return directory;
  };
  /** Settings of one server; the later lines of postgresql.conf win, so a copied file is overridden. */
  const configure = (node: PostgresNode, extra: string[]) =>
    appendFileSync(
      path.join(node.dataDir, 'postgresql.conf'),
      [
        `port = ${node.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${node.dataDir}'`,
        // As private-postgres.ts: a crash of PostgreSQL keeps every commit without fsync, since
        // the kernel holds what was written; nothing here must survive a crash of the machine.
        'fsync = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'max_connections = 40',
        ...extra,
        '',
      ].join('\n'),
    );
  // A free port is free only when it was looked up: with other tests running, an outgoing
  // connection may take it as its local port before the server binds it (the old primary's port,
  // free since its kill, most of all). A start that fails is tried again on another port; callers
  // read `node.port` after the start.
  const start = async (node: PostgresNode) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await tool('pg_ctl', ['-D', node.dataDir, '-l', path.join(node.dataDir, 'server.log'), '-w', '-t', '30', 'start']);
        node.running = true;
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
        node.port = await freePort();
        configure(node, []);
      }
    }
  };
  /** A standby of the server on `sourcePort`, made by pg_basebackup -R, its replication named `name`. */
  const makeStandby = async (node: PostgresNode, sourcePort: number) => {
    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(sourcePort),
      '-U',
      'postgres',
      '-D',
      node.dataDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
      '-c',
      'fast',
    ]);
    // Once promoted it has no standby of its own: it must not wait for one to commit.
    configure(node, ["synchronous_standby_names = ''"]);
    // After what -R wrote to postgresql.auto.conf (read last, so this line wins): the name it streams under.
    appendFileSync(
      path.join(node.dataDir, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${sourcePort} user=postgres application_name=${STANDBY_NAME}'\n`,
    );
    await start(node);
  };

  const primary: PostgresNode = { port: await freePort(), dataDir: newDirectory(), running: false };
  const standby: PostgresNode = { port: await freePort(), dataDir: newDirectory(), running: false };
  const nodes = [primary, standby];
  let address: MovingAddress | undefined;
  const destroy = async () => {
    await address?.close();
    for (const node of nodes) {
      if (node.running) await tool('pg_ctl', ['-D', node.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      node.running = false;
      rmSync(node.dataDir, { recursive: true, force: true });
    }
  };
  try {
    await tool('initdb', [
      '-D',
      primary.dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    // initdb's pg_hba.conf lets local replication connections in (trust), which pg_basebackup and the standby use.
    configure(primary, ['wal_level = replica', 'max_wal_senders = 5']);
    await start(primary);
    await query(primary.port, 'postgres', 'CREATE DATABASE nativa');
    await makeStandby(standby, primary.port);
    // Synchronous once the standby is there: from now on a commit is acknowledged only when the
    // standby has it, so a failover loses none.
    await query(primary.port, 'postgres', `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
    await query(primary.port, 'postgres', 'SELECT pg_reload_conf()');
    await waitFor(
      'the standby to stream synchronously',
      async () => {
        const rows = await query(primary.port, 'postgres', 'SELECT sync_state FROM pg_stat_replication');
        return rows.some((row) => row.sync_state === 'sync');
      },
      SERVER_WAIT,
    );
    address = await startMovingAddress(primary.port);
  } catch (error) {
    await destroy();
    throw error;
  }
  const moving = address;
  return {
    url: `postgres://postgres@127.0.0.1:${moving.port}/nativa`,
    address: moving,
    primary,
    standby,
    killPrimary() {
      const [postmaster, ...children] = serverProcesses(primary.dataDir);
      // The postmaster first, so that it restarts no child; then whatever is left of it.
      for (const pid of [postmaster, ...children, ...serverProcesses(primary.dataDir).slice(1)]) {
        try {
          if (pid !== undefined) process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      primary.running = false;
    },
    async promoteStandby() {
      await tool('pg_ctl', ['-D', standby.dataDir, '-w', '-t', '30', 'promote']);
      await waitFor(
        'the promoted standby to take writes',
        async () => {
          const rows = await query(standby.port, 'nativa', 'SELECT pg_is_in_recovery() AS recovering');
          return rows[0]?.recovering === false;
        },
        SERVER_WAIT,
      );
    },
    async rejoinOldPrimaryAsStandby() {
      if (primary.running) throw new Error('the old primary still runs');
      rmSync(primary.dataDir, { recursive: true, force: true });
      primary.dataDir = newDirectory();
      await makeStandby(primary, standby.port);
      await waitFor(
        'the old primary to stream from the new one',
        async () => {
          const rows = await query(standby.port, 'postgres', 'SELECT state FROM pg_stat_replication');
          return rows.some((row) => row.state === 'streaming');
        },
        SERVER_WAIT,
      );
    },
    destroy,
  };
}

async function query(port: number, database: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${database}` });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
