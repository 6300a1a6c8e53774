// Server CPU per request of this checkout against another one (BENCH_OTHER, a directory holding
// another commit's src/ with node_modules), both in this process on one seeded PostgreSQL
// database, through app.inject (no socket, no TLS: the same for both): blocks of BENCH_BLOCK
// requests per endpoint, the two apps alternated, BENCH_ROUNDS rounds; the median CPU µs per request
// of each. On a shared machine other work falls on both alike and the median drops the blocks it
// hits (docs/adr/0023). `BENCH_OTHER=/tmp/base node bench/paired-cpu.ts`; BENCH_LOG_LEVEL (default
// warn) is the level both apps log at, into a stream that discards the lines.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { generateSelfSigned } from '../src/tls.ts';
import { withBenchDatabase } from './lib/database.ts';
import { seedServing } from './lib/serving-seed.ts';

const other = process.env.BENCH_OTHER;
if (other === undefined) throw new Error('BENCH_OTHER: the directory of the checkout to compare with');
const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const block = Number(process.env.BENCH_BLOCK ?? 200);
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

type Started = Awaited<ReturnType<typeof startServer>>;
type Inject = (options: { method: 'GET'; url: string; headers: Record<string, string> }) => Promise<{ statusCode: number }>;

await withBenchDatabase(async (databaseUrl) => {
  const tls = await generateSelfSigned();
  const start = async (startServerOf: typeof startServer): Promise<Started> => {
    const config = loadConfig({
      ...process.env,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'nativa-paired-')),
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_RPS: '1000000',
      SIGNING_SECRET: 'paired-cpu-signing-secret-0123456789abcdef',
    });
    return startServerOf(config, { tls, logger: { level: logLevel, stream: { write() {} } } });
  };
  const mine = await start(startServer);
  const { startServer: otherStart } = (await import(pathToFileURL(path.join(other, 'src/server.ts')).href)) as {
    startServer: typeof startServer;
  };
  const theirs = await start(otherStart);
  try {
    const { blockId } = await seedServing(mine.context.db, {
      ads: 10_000,
      advertisers: 50,
      campaignsPerAdvertiser: 10,
      countriesPerCampaign: 0,
      countries: [],
    });
    await mine.context.serving?.refresh();
    await theirs.context.serving?.refresh();
    const token = mine.bootstrapToken ?? '';
    const endpoints: [string, string, Record<string, string>][] = [
      ['GET /api/health', '/api/health', {}],
      ['GET /api/me JSON', '/api/me', { 'Auth-Token': token }],
      ['GET /api/me XML', '/api/me', { 'Auth-Token': token, Accept: 'application/xml' }],
      ['teasers, 10,000 ads', `/api/serve/blocks/${blockId}/teasers`, { 'User-Agent': USER_AGENT }],
    ];
    const apps: [string, Inject][] = [
      ['this checkout', mine.app.inject.bind(mine.app) as unknown as Inject],
      [other, theirs.app.inject.bind(theirs.app) as unknown as Inject],
    ];
    const samples = new Map<string, number[]>();
    // The first rounds warm the JIT up and are not counted.
    const warmUp = Math.min(5, Math.floor(rounds / 5));
    for (let round = -warmUp; round < rounds; round += 1) {
      const order = round % 2 === 0 ? apps : [...apps].reverse();
      for (const [label, url, headers] of endpoints) {
        for (const [name, inject] of order) {
          const before = process.cpuUsage();
          for (let index = 0; index < block; index += 1) {
            const response = await inject({ method: 'GET', url, headers });
            if (response.statusCode !== 200) throw new Error(`${name} ${label}: ${response.statusCode}`);
          }
          const used = process.cpuUsage(before);
          if (round < 0) continue;
          const key = `${label}\t${name}`;
          const list = samples.get(key) ?? [];
          list.push((used.user + used.system) / block);
          samples.set(key, list);
        }
      }
    }
    const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)] ?? 0;
    process.stdout.write(
      `CPU µs per request, median (first quartile) of ${rounds} blocks of ${block}, LOG_LEVEL ${logLevel}\nendpoint\t${apps.map(([name]) => name).join('\t')}\n`,
    );
    for (const [label] of endpoints) {
      const row = apps.map(([name]) => {
        const values = samples.get(`${label}\t${name}`) ?? [];
        return `${quantile(values, 0.5).toFixed(1)} (${quantile(values, 0.25).toFixed(1)})`;
      });
      process.stdout.write(`${label}\t${row.join('\t')}\n`);
    }
  } finally {
    await mine.app.close();
    await theirs.app.close();
  }
});
