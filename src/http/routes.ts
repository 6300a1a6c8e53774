import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AppContext } from '../app-context.ts';
import { unauthenticated } from './errors.ts';

/**
 * The application as modules see it: the TypeBox type provider types each handler's
 * `request.params/query/body` from the schemas its route declares (compile time only).
 */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A module's routes, registered from the MODULES list of app.ts. */
export type RegisterRoutes = (app: App, context: AppContext) => void;

/** The account behind the request's token; routes that require one are never reached without it. */
export function accountOf(request: FastifyRequest): number {
  const principal = request.principal;
  if (principal === undefined) throw unauthenticated();
  return principal.accountId;
}
