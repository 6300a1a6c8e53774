import type { FastifyRequest } from 'fastify';
import type { Unchecked } from '../shared/unchecked.ts';
import { DomainError, type FieldError } from './errors.ts';

/**
 * A route's field rules beyond its schema: the check its service makes (an ad's description
 * limit from its campaign, a category that must exist), declared as `config.fieldRules`. When
 * schema validation fails, the 422 path runs them on the input as received and reports their
 * errors beside the schema's, so one 422 names every failing field. The service calls the same
 * rules on its own create or change path, so they are written once.
 */
export type FieldRules = (request: FastifyRequest) => Promise<FieldError[]>;

declare module 'fastify' {
  interface FastifyContextConfig {
    fieldRules?: FieldRules;
  }
}

/** The request's body as received (parsed and coerced, not validated). */
export function uncheckedBody<T>(request: FastifyRequest): Unchecked<T> {
  const body = request.body;
  return (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Unchecked<T>;
}

/** One entry per field: the schema's errors first, then those of the rules on other fields. */
export function mergeFieldErrors(schemaErrors: FieldError[], ruleErrors: FieldError[]): FieldError[] {
  const named = new Set(schemaErrors.map((error) => error.field));
  const merged = [...schemaErrors];
  for (const error of ruleErrors) {
    if (named.has(error.field)) continue;
    named.add(error.field);
    merged.push(error);
  }
  return merged;
}

/**
 * The route's rule errors for a request its schema refused; none when it declares no rules.
 * A rule that throws a 422 still counts; anything else it throws is logged and left out, since the
 * answer is a 422 already.
 */
export async function ruleErrorsOf(request: FastifyRequest): Promise<FieldError[]> {
  const rules = request.routeOptions.config.fieldRules;
  if (rules === undefined) return [];
  try {
    return await rules(request);
  } catch (error) {
    if (error instanceof DomainError && error.fieldErrors) return error.fieldErrors;
    if (isDataException(error))
      request.log.info({ err: error }, 'field rules: the database refused the invalid input (client error)');
    else request.log.error({ err: error }, 'field rules failed on invalid input');
    return [];
  }
}

/**
 * The database refused the input's data itself (SQLSTATE class 22, data exception: a NUL byte or
 * invalid UTF-8, a time-zone displacement or a number out of range): a rule looked up input the
 * schema had refused anyway. That is the client's error, already answered 422, not the server's.
 */
function isDataException(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}
