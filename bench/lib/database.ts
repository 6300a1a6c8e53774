import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server the benchmarks use; every scenario gets a fresh database on it. */
export const BENCH_SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_SERVER_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Runs `work` with the URL of a new, empty database, dropped afterwards. CREATE DATABASE fails
 * while another session uses the template database (tests running at the same time do), so it
 * is retried a few times.
 */
export async function withBenchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `nativa_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`CREATE DATABASE ${name}`);
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
  const url = new URL(BENCH_SERVER_URL);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
