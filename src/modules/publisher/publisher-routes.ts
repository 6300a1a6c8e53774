import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { registerOperatorPublisherRoutes } from '../operator/publisher-routes.ts';
import { registerBlockRoutes } from './blocks/block-routes.ts';
import { registerPayoutRoutes } from './payouts/payout-routes.ts';
import { registerSiteRoutes } from './sites/site-routes.ts';
import { registerStatisticsRoutes } from './statistics/statistics-routes.ts';

/**
 * The publisher ("webmaster") API of spec §4.2 (sites, blocks, statistics, payouts) and the
 * operator's side of it (moderation, payouts, balances), registered together as one module.
 */
export function registerPublisherRoutes(app: FastifyInstance, context: AppContext): void {
  registerSiteRoutes(app, context);
  registerBlockRoutes(app, context);
  registerStatisticsRoutes(app, context);
  registerPayoutRoutes(app, context);
  registerOperatorPublisherRoutes(app, context);
}
