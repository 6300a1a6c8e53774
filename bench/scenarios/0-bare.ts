import { generateSelfSigned } from '../../src/tls.ts';
import { startBareServer } from '../lib/bare-server.ts';
import { load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';

export async function measureBare(durationSeconds: number, connections: number): Promise<BenchRow> {
  const bare = await startBareServer(await generateSelfSigned());
  try {
    const result = await load({ url: bare.url, connections, durationSeconds });
    return { scenario: `bare Fastify TLS route (yardstick, ${result.tool})`, result, ratio: 1 };
  } finally {
    await bare.app.close();
  }
}
