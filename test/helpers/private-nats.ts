import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from './network.ts';

/**
 * Private NATS servers with JetStream for the tests that stop them: `nats-server` processes on free
 * loopback ports, each with its own store directory, joined by cluster routes when there are
 * several. They are stopped by pid, never by name; the machine's shared server (4222) is never
 * touched.
 */

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** The nats-server binary, or undefined when this machine has none. */
export function natsServerBinary(): string | undefined {
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

/**
 * Why a test that needs nats-server cannot run here, or false when it can. In CI (`CI=true`) a
 * missing server is not a reason to skip: the test runs and fails, saying what is missing.
 */
export function natsSkipReason(): string | false {
  if (natsServerBinary() !== undefined || process.env.CI === 'true') return false;
  return `nats-server is not installed (looked in ${CANDIDATES.join(', ')}; apt-get install nats-server)`;
}

export interface NatsNode {
  name: string;
  /** nats://127.0.0.1:port */
  url: string;
  process: ChildProcess;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's URL, comma-separated, as NATS_URL takes them. */
  urls: string;
  /** SIGKILLs one node and waits until it has exited. */
  kill(node: NatsNode): Promise<void>;
  /** Starts a killed node again on its port and store (its `process` is the new one). */
  restart(node: NatsNode): void;
  /** Resolves when JetStream answers an account query again (a meta leader is elected). */
  ready(): Promise<void>;
  /** Kills every node still running and removes the store directories. */
  stop(): Promise<void>;
}

/** Starts `size` JetStream servers (a cluster when more than one) and waits until JetStream answers. */
export async function startNatsCluster(size: number): Promise<NatsCluster> {
  const binary = natsServerBinary();
  if (binary === undefined) throw new Error(natsSkipReason() || 'nats-server is not installed');
  const root = mkdtempSync(path.join(os.tmpdir(), 'nativa-nats-'));
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })),
  );
  const nodes: NatsNode[] = [];
  const exited = new Map<ChildProcess, Promise<void>>();
  const configs = new Map<string, string>();
  const spawnNode = (configFile: string) => {
    const child = spawn(binary, ['-c', configFile], { stdio: 'ignore' });
    exited.set(child, new Promise((resolve) => child.once('exit', () => resolve())));
    return child;
  };
  const cluster: NatsCluster = {
    nodes,
    urls: ports.map((port) => `nats://127.0.0.1:${port.client}`).join(','),
    async kill(node) {
      const done = exited.get(node.process);
      if (node.process.exitCode === null && node.process.signalCode === null) node.process.kill('SIGKILL');
      await done;
    },
    restart(node) {
      const configFile = configs.get(node.name);
      if (configFile === undefined) throw new Error(`no node ${node.name}`);
      node.process = spawnNode(configFile);
    },
    ready: () => waitForJetStream(cluster.urls),
    async stop() {
      await Promise.all(nodes.map((node) => cluster.kill(node)));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    ports.forEach((port, index) => {
      const name = `n${index + 1}`;
      const dir = path.join(root, name);
      mkdirSync(dir);
      const routes = ports.filter((other) => other !== port).map((other) => `"nats-route://127.0.0.1:${other.route}"`);
      const clusterBlock =
        size > 1 ? `cluster { name: nativa-test, listen: "127.0.0.1:${port.route}", routes: [${routes.join(', ')}] }` : '';
      const configFile = path.join(dir, 'server.conf');
      writeFileSync(
        configFile,
        [
          `server_name: ${name}`,
          `listen: "127.0.0.1:${port.client}"`,
          `jetstream { store_dir: "${path.join(dir, 'store')}", max_memory_store: 64MB, max_file_store: 2GB }`,
          clusterBlock,
        ].join('\n'),
      );
      configs.set(name, configFile);
      nodes.push({ name, url: `nats://127.0.0.1:${port.client}`, process: spawnNode(configFile) });
    });
    await waitForJetStream(cluster.urls);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** Waits (at most 20 s) until JetStream answers an account query: in a cluster, a meta leader is elected. */
async function waitForJetStream(urls: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await connect({ servers: urls.split(','), timeout: 1000 });
      try {
        const manager = await jetstreamManager(connection, { timeout: 1000 });
        await manager.getAccountInfo();
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`JetStream did not come up at ${urls}: ${(last as Error | undefined)?.message}`);
}
