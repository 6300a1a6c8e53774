/**
 * The one error model of the domain: services throw a DomainError naming an entry of ERRORS, and
 * the HTTP layer (src/http/errors.ts) turns it into a status and the spec's body
 * `{name, message, code, status}`. The spec types `code` as an integer, so each entry has a
 * stable number beside its name; clients branch on the number (the SDK names it), never on the
 * message. An entry's name and number never change or get reused: a new condition is a new entry.
 */

/**
 * Values a message's placeholders take. A throw site may name its message by a key of the
 * catalogues in src/http/locales (with these values) so the error handler can answer in the
 * request's language; `message` is then the English text, which logs keep.
 */
export type MessageValues = Record<string, string | number>;

/** One failing field of a request, named as the client wrote it. */
export interface FieldError {
  field: string;
  message: string;
  /** The message's catalogue key, when the throw site names it (never sent to clients). */
  key?: string;
  values?: MessageValues;
}

/** The catalogue: each condition a client may want to tell apart, with its stable number. */
export const ERRORS = {
  // The request itself.
  invalid_request: { code: 1000, description: 'The request is not valid: malformed JSON, XML or HTTP, or a wrong parameter.' },
  validation_failed: { code: 1001, description: 'One or more fields are not valid; `errors` has one entry per failing field.' },
  unsupported_media_type: {
    code: 1002,
    description: 'The body type, or the response format or API version asked for in Accept, is not supported.',
  },
  body_too_large: { code: 1003, description: 'The request body is larger than the server accepts.' },
  uri_too_long: { code: 1004, description: 'The request URL is too long.' },
  headers_too_large: { code: 1005, description: 'The request headers are too large.' },
  request_timeout: { code: 1006, description: 'The request took too long to arrive.' },
  method_not_allowed: { code: 1007, description: 'The path exists but not with this method; `Allow` lists the methods.' },
  route_not_found: { code: 1008, description: 'No route has this path.' },
  body_too_complex: {
    code: 1009,
    description:
      'The request body holds more fields and list items (BODY_MAX_MEMBERS in all) or deeper nesting (32 levels) than the server reads.',
  },
  // Who is asking.
  unauthenticated: { code: 2000, description: 'No token or session, or an unknown, revoked or expired one.' },
  sign_in_failed: { code: 2001, description: 'Wrong login or password.' },
  forbidden: { code: 2002, description: 'The caller may not use this entry point or action.' },
  wrong_account_kind: {
    code: 2003,
    description: 'The entry point is for another kind of account (advertiser, publisher, operator).',
  },
  https_required: { code: 2004, description: 'The request was not made over HTTPS.' },
  cross_site_request: {
    code: 2005,
    description: 'A request made with a session cookie did not come from the server’s own pages.',
  },
  rate_limited: {
    code: 2006,
    description:
      'Too many requests for this token (on the public sign-in, reset and confirmation routes: from this address); retry after `Retry-After` seconds.',
  },
  too_many_sign_ins: { code: 2007, description: 'Too many failed sign-ins; retry after `Retry-After` seconds.' },
  two_factor_required: {
    code: 2008,
    description: 'The account must turn on two-factor sign-in before anything else (its kind requires it).',
  },
  second_factor_failed: { code: 2009, description: 'Wrong authenticator or recovery code at the second step of a sign-in.' },
  sign_in_expired: {
    code: 2010,
    description: 'The ticket of the password step has expired or was used; start the sign-in again.',
  },
  passkey_refused: {
    code: 2011,
    description: 'The passkey was not accepted: unknown, its challenge expired or used, or its signature does not check.',
  },
  account_suspended: {
    code: 2012,
    description: 'The account is suspended by an operator: it cannot sign in, and its tokens were revoked.',
  },
  postback_key_refused: {
    code: 2020,
    description: 'A conversion postback without the postback key of the click’s advertiser (missing, wrong or replaced).',
  },
  // The objects asked for.
  not_found: { code: 3000, description: 'The object does not exist or belongs to another account.' },
  link_expired: { code: 3001, description: 'The confirmation link has expired.' },
  // The state of things.
  conflict: { code: 4000, description: 'The request conflicts with the current state of the object.' },
  site_banned: { code: 4001, description: 'The site is banned: nothing can be added to it.' },
  site_not_active: { code: 4002, description: 'The site is not active (in moderation or banned): nothing serves there.' },
  refund_race: {
    code: 4003,
    description: 'Another refund took some of the same clicks at the same time; nothing changed, retry.',
  },
  idempotency_in_flight: {
    code: 4004,
    description: 'A request with this Idempotency-Key is still running; retry when it has answered.',
  },
  backup_unavailable: { code: 4005, description: 'This server runs on PostgreSQL: back it up with pg_dump.' },
  passkey_exists: { code: 4006, description: 'This passkey is already registered.' },
  two_factor_on: { code: 4007, description: 'Two-factor sign-in is already on; turn it off first.' },
  two_factor_not_started: { code: 4008, description: 'Two-factor enrolment was not started: start it to get the secret.' },
  two_factor_mandatory: {
    code: 4009,
    description: 'Two-factor sign-in is required for this kind of account: it cannot be turned off.',
  },
  two_factor_off: { code: 4010, description: 'Two-factor sign-in is not on for this account.' },
  password_already_set: {
    code: 4060,
    description:
      'The account has chosen its password already: an invitation link is only for one that has not (send a password reset instead).',
  },
  not_rejected: { code: 4030, description: 'Only a rejected (or banned) object can be sent back to moderation.' },
  erasure_refused: {
    code: 4040,
    description: 'This account cannot be erased: it is an operator account or already erased.',
  },
  bid_notice_forged: {
    code: 4050,
    description: 'Not a win or billing notice of a bid of this server (OpenRTB `nurl`/`burl`): its token or MAC is wrong.',
  },
  bid_expired: {
    code: 4051,
    description: 'The OpenRTB bid expired unserved: its notice came after its tokens’ lifetime (one hour).',
  },
  clearing_price_refused: {
    code: 4052,
    description: `The clearing price of an OpenRTB notice (\`\${AUCTION_PRICE}\`) is not a decimal price, or exceeds the bid.`,
  },
  // The server.
  internal_error: {
    code: 9000,
    description: 'An internal error; the body carries no details, the server log has them by request id.',
  },
  database_unavailable: {
    code: 9001,
    description:
      'The database is unavailable for a moment (a restart, a failover) or too slow (a statement cancelled by `DATABASE_STATEMENT_TIMEOUT_MS`); retry after `Retry-After` seconds.',
  },
} as const satisfies Record<string, { code: number; description: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class DomainError extends Error {
  /** The catalogue entry: what went wrong, in words a client can branch on. */
  readonly code: ErrorCode;
  readonly fieldErrors: FieldError[] | undefined;
  /** For conditions that pass with time (rate limits): when to try again. */
  readonly retryAfterSeconds: number | undefined;
  /** The message's catalogue key and values, when the throw site names them; `message` stays English. */
  readonly key: string | undefined;
  readonly values: MessageValues | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fieldErrors?: FieldError[]; retryAfterSeconds?: number; key?: string; values?: MessageValues } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.fieldErrors = options.fieldErrors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.key = options.key;
    this.values = options.values;
  }
}

/** The object does not exist, or is someone else's (the two are never told apart). */
export const notFound = (what = 'Object') => new DomainError('not_found', `${what} not found.`);

/** One or more fields are not valid; every failing field gets its own entry. */
export function validationFailed(fieldErrors: FieldError[]): DomainError {
  const message = fieldErrors.map((error) => `${error.field}: ${error.message}`).join(' ');
  return new DomainError('validation_failed', message, { fieldErrors });
}

export const invalidField = (field: string, message: string) => validationFailed([{ field, message }]);

export const unauthenticated = (message = 'Your request was made with invalid credentials.') =>
  new DomainError('unauthenticated', message);

export const forbidden = (message = 'You are not allowed to perform this action.') => new DomainError('forbidden', message);
