import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { activeSellers } from './site-privacy-repository.ts';

const SellerSchema = Type.Object({
  seller_id: Type.String({ description: 'The publisher account id: the account id of its ads.txt line.' }),
  seller_type: Type.Literal('PUBLISHER', { description: 'Every seller is a publisher paid directly by the network.' }),
  name: Type.Optional(Type.String({ description: "The publisher's name, when it gave one." })),
  domain: Type.Optional(Type.String({ description: "The domain of the publisher's first active site." })),
  is_confidential: Type.Optional(Type.Integer({ description: '1 when the publisher gave no name.' })),
});

const SellersJsonSchema = Type.Object({
  version: Type.Literal('1.0', { description: 'sellers.json version (IAB Tech Lab 1.0).' }),
  contact_email: Type.Optional(Type.String({ description: "The operator's contact (SELLERS_CONTACT_EMAIL)." })),
  contact_address: Type.Optional(Type.String({ description: "The operator's address (SELLERS_CONTACT_ADDRESS)." })),
  sellers: Type.Array(SellerSchema, { description: 'Every publisher with an active site.' }),
});

/** The network's sellers.json (IAB Tech Lab 1.0) at its origin, so buyers can verify ads.txt lines. */
export function registerSellersJsonRoutes(app: App, context: AppContext): void {
  const { db, config } = context;
  app.get(
    '/sellers.json',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Serving'],
        operationId: 'getSellersJson',
        summary: 'sellers.json (IAB Tech Lab 1.0): every publisher with an active site as a seller.',
        security: [],
        response: { 200: SellersJsonSchema, ...errorResponses(429) },
      },
    },
    async (_request, reply) => {
      const sellers = new Map<
        number,
        { seller_id: string; seller_type: 'PUBLISHER'; name?: string; domain?: string; is_confidential?: number }
      >();
      for (const row of await activeSellers(db)) {
        if (sellers.has(row.id)) continue;
        const name = row.name.trim();
        sellers.set(row.id, {
          seller_id: String(row.id),
          seller_type: 'PUBLISHER',
          ...(name === '' ? { is_confidential: 1 } : { name }),
          domain: siteDomain(row.url),
        });
      }
      reply.header('Cache-Control', 'public, max-age=3600');
      reply.header('Access-Control-Allow-Origin', '*');
      return {
        version: '1.0' as const,
        ...(config.sellersContact.email === undefined ? {} : { contact_email: config.sellersContact.email }),
        ...(config.sellersContact.address === undefined ? {} : { contact_address: config.sellersContact.address }),
        sellers: [...sellers.values()],
      };
    },
  );
}

/** A site URL's domain without `www.` (sellers.json wants the root domain of the seller's inventory). */
function siteDomain(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}
