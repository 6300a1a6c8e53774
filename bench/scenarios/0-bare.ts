import { generateSelfSigned } from '../../src/tls.ts';
import { startBareServer } from '../lib/bare-server.ts';
import { withCpu } from '../lib/cpu.ts';
import { load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';

export async function measureBare(durationSeconds: number, connections: number): Promise<BenchRow> {
  const bare = await startBareServer(await generateSelfSigned());
  try {
    const { result, cpu } = await withCpu(() => load({ url: bare.url, connections, durationSeconds }), undefined);
    return { scenario: 'bare Fastify TLS route (yardstick)', result, ratio: 1, cpu };
  } finally {
    await bare.app.close();
  }
}
