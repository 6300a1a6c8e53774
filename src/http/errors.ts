import { DomainError, ERRORS, type ErrorCode, type FieldError } from '../errors.ts';
import { DEFAULT_MESSAGE_LANGUAGE, type KeyedMessage, type MessageLanguage, translateMessage } from './message-languages.ts';

/**
 * The HTTP side of the one error model: services throw DomainError (src/errors.ts) naming an entry
 * of the catalogue; here each entry gets its status, and every failure becomes the spec's body
 * `{name, message, code, status}` with the entry's stable number as `code` (422: plus `errors[]`).
 */

export { DomainError, type ErrorCode, type FieldError };

/** The HTTP status of each entry of the catalogue. */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_request: 400,
  validation_failed: 422,
  unsupported_media_type: 415,
  body_too_large: 413,
  body_too_complex: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  request_timeout: 408,
  method_not_allowed: 405,
  route_not_found: 404,
  unauthenticated: 401,
  sign_in_failed: 401,
  forbidden: 403,
  wrong_account_kind: 403,
  https_required: 403,
  cross_site_request: 403,
  rate_limited: 429,
  too_many_sign_ins: 429,
  two_factor_required: 403,
  second_factor_failed: 401,
  sign_in_expired: 401,
  passkey_refused: 401,
  account_suspended: 403,
  postback_key_refused: 401,
  not_found: 404,
  link_expired: 410,
  conflict: 409,
  site_banned: 409,
  site_not_active: 409,
  refund_race: 409,
  idempotency_in_flight: 409,
  backup_unavailable: 409,
  passkey_exists: 409,
  two_factor_on: 409,
  password_already_set: 409,
  two_factor_not_started: 409,
  two_factor_mandatory: 409,
  two_factor_off: 409,
  not_rejected: 409,
  erasure_refused: 409,
  bid_notice_forged: 400,
  bid_expired: 410,
  clearing_price_refused: 400,
  internal_error: 500,
  database_unavailable: 503,
};

export const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Data Validation Failed',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The entry a status stands for when nothing more is known (failures Fastify or Node answer). */
const GENERAL_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'link_expired',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'database_unavailable',
};

export function generalCodeOf(status: number): ErrorCode {
  return GENERAL_CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
}

export interface ErrorBody {
  name: string;
  message: string;
  code: number;
  status: number;
  errors?: FieldError[];
}

export function errorBody(
  status: number,
  message: string,
  code: ErrorCode = generalCodeOf(status),
  errors?: FieldError[],
): ErrorBody {
  const body: ErrorBody = { name: STATUS_NAMES[status] ?? 'Error', message, code: ERRORS[code].code, status };
  // A field error's catalogue key and values are for the server's translation, not the client.
  if (errors) body.errors = errors.map(({ field, message }) => ({ field, message }));
  return body;
}

/** An error body in the request's language, and that language when any of its messages was translated. */
export interface LocalisedErrorBody {
  body: ErrorBody;
  contentLanguage: MessageLanguage | undefined;
}

/**
 * The error body with its messages in `language` (docs/api-conventions.md, "Languages of
 * messages"): each field error's and the envelope's. A 422's envelope message is its field errors
 * joined, so it is joined again from the translated ones. A message the catalogues lack stays
 * English; codes and field names never change. Field errors lose their catalogue key here.
 */
export function localisedErrorBody(
  language: MessageLanguage,
  status: number,
  message: KeyedMessage,
  code: ErrorCode = generalCodeOf(status),
  fieldErrors?: FieldError[],
): LocalisedErrorBody {
  let translated = false;
  const textOf = (entry: KeyedMessage): string => {
    const text = language === DEFAULT_MESSAGE_LANGUAGE ? undefined : translateMessage(language, entry);
    if (text === undefined) return entry.message;
    translated = true;
    return text;
  };
  const errors = fieldErrors?.map((entry) => ({ field: entry.field, message: textOf(entry) }));
  let text: string;
  if (code === 'validation_failed' && errors !== undefined && errors.length > 0 && language !== DEFAULT_MESSAGE_LANGUAGE) {
    text = errors.map((entry) => `${entry.field}: ${entry.message}`).join(' ');
  } else {
    text = textOf(message);
  }
  return { body: errorBody(status, text, code, errors), contentLanguage: translated ? language : undefined };
}

/** The HTTP layer's own refusals, before any service runs. */
export const badRequest = (message: string) => new DomainError('invalid_request', message);
export { forbidden, invalidField, notFound, unauthenticated, validationFailed } from '../errors.ts';
