import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import { sendServingFailure, setAnswerFormat } from './conventions.ts';
import { FastReply } from './fast-reply.ts';
import type { ResponseFormat } from './negotiation.ts';
import { setServingSecurityHeaders } from './security-headers.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The serving fast path in front of this app's routes, absent in apps built without one. */
    fastPath: FastPath | undefined;
  }
}

/** Counts a finished request of one route by its status and duration (the request metrics' series). */
type RequestRecorder = (status: number, seconds: number) => void;

/**
 * A request the fast path looks at: the raw request, its path and query text (split at the first
 * `?`, as Fastify splits it), and the client's address as Fastify's `request.ip` gives it.
 */
export interface FastRequest {
  raw: IncomingMessage;
  method: string;
  path: string;
  /** The text after the first `?`, `''` when there is none. */
  query: string;
  headers: IncomingMessage['headers'];
}

/**
 * One route of the fast path. `take` decides, before any side effect and without reading a body
 * it does not answer itself, whether it answers the request: `undefined` hands the request to
 * Fastify unchanged; a function is then called with the reply to answer it.
 */
export interface FastRoute {
  method: string;
  /** The route's pattern as Fastify registered it: its requests are counted under it. */
  url: string;
  /** Whether a path is this route's (the cheap test before `take`). */
  matches(path: string): boolean;
  take(request: FastRequest): FastAnswer | undefined;
}

/** How a route answers a request it took: in the format negotiated for it, by a function of the reply. */
export interface FastAnswer {
  format: ResponseFormat;
  /** A top-level navigation (a click link): its answer also carries HSTS (security-headers.ts). */
  navigation: boolean;
  answer(reply: FastReply): Promise<void>;
}

interface Registered {
  route: FastRoute;
  record: RequestRecorder;
}

export interface FastPathOptions {
  /**
   * SERVING_FAST_PATH, and a log level below debug (at debug and trace Fastify logs each serving
   * request): off, every request goes to Fastify. Read per request, so tests can compare both paths.
   */
  enabled: () => boolean;
  trustProxy: boolean;
  /** The root logger: the fast path writes no line per request, only what its answers log. */
  log: FastifyBaseLogger;
  recorder(route: string, method: string): RequestRecorder;
}

/**
 * The serving fast path (docs/adr/0056): the requests a publisher's page makes are answered here,
 * in the HTTPS server's own request handler, before Fastify sees them; every other request, and
 * every one of theirs a route does not fully understand, goes to Fastify unchanged.
 */
export class FastPath {
  /** Requests answered here (tests read it to know the fast path took what they sent). */
  answered = 0;
  private closing = false;
  private readonly routes: Registered[] = [];
  private readonly options: FastPathOptions;
  private readonly trustAll = () => true;

  constructor(options: FastPathOptions) {
    this.options = options;
  }

  get log(): FastifyBaseLogger {
    return this.options.log;
  }

  get trustsProxy(): boolean {
    return this.options.trustProxy;
  }

  add(route: FastRoute): void {
    this.routes.push({ route, record: this.options.recorder(route.url, route.method) });
  }

  /** From the start of the application's close: every request goes to Fastify, which answers 503. */
  close(): void {
    this.closing = true;
  }

  /** The client's address as Fastify's `request.ip` gives it. */
  addressOf(raw: IncomingMessage): string | undefined {
    if (!this.options.trustProxy) return raw.socket.remoteAddress;
    // The leftmost X-Forwarded-For entry, read by the library Fastify reads it with.
    const addresses = proxyAddr.all(raw, this.trustAll);
    return addresses[addresses.length - 1];
  }

  /** Whether `TRUST_PROXY` refuses the request (403 from Fastify's conventions): not for the fast path. */
  refusedByProxyRule(raw: IncomingMessage): boolean {
    return this.options.trustProxy && raw.headers['x-forwarded-proto'] !== 'https';
  }

  /** Answers the request when one of its routes takes it; false hands it to Fastify. */
  dispatch(raw: IncomingMessage, response: ServerResponse): boolean {
    if (this.closing || this.routes.length === 0 || !this.options.enabled()) return false;
    const url = raw.url ?? '';
    const question = url.indexOf('?');
    const path = question === -1 ? url : url.slice(0, question);
    const method = raw.method ?? '';
    for (const { route, record } of this.routes) {
      if (route.method !== method || !route.matches(path)) continue;
      const request = { raw, method, path, query: question === -1 ? '' : url.slice(question + 1), headers: raw.headers };
      let answer: FastAnswer | undefined;
      try {
        answer = route.take(request);
      } catch (error) {
        // A request a route misreads is Fastify's to answer (nothing has been done yet), never a crash.
        this.options.log.warn({ err: error }, 'the serving fast path could not read a request: Fastify answers it');
        return false;
      }
      if (answer === undefined) return false;
      this.answer(response, method, answer, record);
      return true;
    }
    return false;
  }

  private answer(response: ServerResponse, method: string, { format, navigation, answer }: FastAnswer, record: RequestRecorder) {
    const started = performance.now();
    this.answered += 1;
    const reply = new FastReply(response, method);
    response.once('close', () => record(reply.statusCode, (performance.now() - started) / 1000));
    // What the conventions' onRequest hook sets on a serving route's reply, in its order.
    setServingSecurityHeaders(reply, navigation);
    setAnswerFormat(reply, format);
    answer(reply).catch((error: unknown) => {
      // As Fastify would answer the error: the conventions' one error answer of a serving route.
      if (reply.sent) {
        this.options.log.error({ err: error }, 'request failed after its answer was sent');
        return;
      }
      try {
        sendServingFailure(reply, error as Error, this.options.log, format);
      } catch {
        // An answer Node refuses to write (a header it cannot send): the client sees the connection end.
        response.destroy();
      }
    });
  }
}

/** The options Fastify gives a server factory (lib/server.js), with its defaults already applied. */
interface ServerFactoryOptions {
  https?: https.ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * Fastify's `serverFactory`: the one HTTPS server of the application, whose request handler tries
 * the fast path first (`dispatch`) and calls Fastify's handler for everything else. It sets what
 * Fastify sets on a server it creates itself (lib/server.js), so taking creation over changes
 * nothing else.
 */
export function serverWithFastPath(dispatch: (raw: IncomingMessage, response: ServerResponse) => boolean) {
  return (handler: (raw: IncomingMessage, response: ServerResponse) => void, options: ServerFactoryOptions): https.Server => {
    const server = https.createServer(options.https ?? {}, (raw, response) => {
      if (!dispatch(raw, response)) handler(raw, response);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout ?? 0);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) {
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    }
    return server;
  };
}
