import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export { ERROR_CODES, type ErrorCodeName } from './error-codes.ts';
export { FIELD_LIMITS, type FieldLimitOperation } from './field-limits.ts';
export type { components, operations, paths } from './schema.d.ts';

/** The body of every failed request of the Nativa API. */
export interface ErrorEnvelope {
  name: string;
  message: string;
  code: number;
  status: number;
  /** With 422: one entry per failing field. */
  errors?: { field: string; message: string }[];
}

/** A request the API refused (or could not serve), with the API's error body. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly errors: { field: string; message: string }[];
  readonly envelope: ErrorEnvelope;

  constructor(envelope: ErrorEnvelope) {
    super(envelope.message);
    this.name = 'ApiError';
    this.envelope = envelope;
    this.status = envelope.status;
    this.code = envelope.code;
    this.errors = envelope.errors ?? [];
  }

  /** The message of one field's error, for showing it beside that field. */
  fieldError(field: string): string | undefined {
    return this.errors.find((error) => error.field === field)?.message;
  }
}

export interface NativaOptions {
  /** Where the server is, e.g. `https://ads.example.com` (no `/api`); '' in a page served by it. */
  baseUrl: string;
  /** An API token, sent as `Auth-Token`. Leave it out in the browser, where the session cookie is used. */
  token?: string;
  /** `include` in the web app, so the session cookie goes along. */
  credentials?: RequestInit['credentials'];
  /**
   * How many times a 429 is waited out (its Retry-After) before it is thrown, and how many times a
   * POST or PUT whose connection failed is sent again with its Idempotency-Key; default 3.
   */
  maxRetries?: number;
  /** The longest wait for one 429, in seconds; default 30. */
  maxWaitSeconds?: number;
  fetch?: (request: Request) => Promise<Response>;
  /** How to wait (tests pass one that moves a clock). */
  sleep?: (milliseconds: number) => Promise<void>;
}

/** The client asks for JSON (`Accept`), so its answers are typed as the JSON media type of each operation. */
export type NativaClient = Client<paths, 'application/json'>;

const RETRY_AFTER_NETWORK_ERROR_MS = 500;

/**
 * Gives a POST or PUT that has none an Idempotency-Key of its own (a random UUID), so that sending
 * it again after a lost answer cannot do it twice on the routes that take keys (the others ignore
 * the header). Returns whether the request now carries a key.
 */
function withIdempotencyKey(request: Request): boolean {
  if (request.method !== 'POST' && request.method !== 'PUT') return false;
  if (!request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
  return true;
}

const wait = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * A typed client of the whole API: `client.GET('/api/me')`, with paths, parameters, bodies and
 * answers checked against the server's OpenAPI document. Every answer that is not a success is
 * thrown as an ApiError; a 429 is first waited out as its `Retry-After` says, a bounded number
 * of times. Every POST and PUT carries an Idempotency-Key (the caller's, or a random one), and one
 * whose connection fails is sent again with the same key.
 */
export function createNativaClient(options: NativaOptions): NativaClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? wait;
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = (options.maxWaitSeconds ?? 30) * 1000;

  const fetchWaitingOut429 = async (request: Request): Promise<Response> => {
    const keyed = withIdempotencyKey(request);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await send(attempt < maxRetries ? request.clone() : request);
      } catch (error) {
        // The request may have taken effect before the connection failed: only a keyed one is sent again.
        if (!keyed || attempt >= maxRetries) throw error;
        await sleep(RETRY_AFTER_NETWORK_ERROR_MS * (attempt + 1));
        continue;
      }
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const seconds = Number(response.headers.get('Retry-After'));
      await response.body?.cancel();
      await sleep(Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, maxWaitMs) : 1000);
    }
  };

  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    credentials: options.credentials,
    fetch: fetchWaitingOut429,
    headers: { Accept: 'application/json', ...(options.token === undefined ? {} : { 'Auth-Token': options.token }) },
  });
  client.use({
    async onResponse({ response }) {
      if (response.ok) return undefined;
      const text = await response.clone().text();
      let envelope: ErrorEnvelope;
      try {
        envelope = JSON.parse(text) as ErrorEnvelope;
      } catch {
        envelope = { name: response.statusText, message: text || response.statusText, code: 0, status: response.status };
      }
      throw new ApiError({ ...envelope, status: response.status });
    },
  });
  return client;
}

/**
 * The data of a successful call; the client has already thrown for anything else.
 * `const me = await data(client.GET('/api/me'))`.
 */
export async function data<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const result = await call;
  return result.data as T;
}

/**
 * Every item of a paginated list, page after page as the `X-Pagination-*` headers describe:
 * `for await (const campaign of pages((page) => client.GET('/api/advertiser/campaigns', { params: { query: { page } } })))`.
 */
export async function* pages<T>(
  fetchPage: (page: number) => Promise<{ data?: T[]; response: Response }>,
): AsyncGenerator<T, void, undefined> {
  for (let page = 1; ; page++) {
    const { data: items, response } = await fetchPage(page);
    yield* items ?? [];
    const pageCount = Number(response.headers.get('X-Pagination-Page-Count') ?? 1);
    const current = Number(response.headers.get('X-Pagination-Current-Page') ?? page);
    if (!(current < pageCount) || (items ?? []).length === 0) return;
  }
}
