import Fastify, { type FastifyInstance } from 'fastify';
import type { TlsMaterial } from '../../src/tls.ts';

/** The yardstick's answer: a JSON object of about the size of a User. */
export const BARE_BODY = {
  id: 2,
  username: 'advertiser',
  email: 'ads@example.test',
  type: 'advertiser',
  name: '',
  url: 'https://example.test',
  date: '2026-03-10T12:00:00.000Z',
  maxmoney: 0,
  whatsapp: '',
  telegram: '',
  skype: '',
  phone: '',
  balance: 1000,
  parentId: null,
  emailConfirmed: true,
} as const;

/**
 * The yardstick: a bare Fastify TLS route returning a JSON object of about the size of a User,
 * with nothing on its path. Every figure of `npm run bench` is a ratio against it, measured in the
 * same run on the same machine.
 */
export async function startBareServer(tls: TlsMaterial): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify({ https: { cert: tls.cert, key: tls.key }, logger: false });
  app.get('/bare', async () => BARE_BODY);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `https://127.0.0.1:${port}/bare`, app };
}
