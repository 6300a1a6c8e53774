import { createRequire } from 'node:module';
import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from './config.ts';

/**
 * Pino options for the server's log: one JSON object per line for a log collector, or short
 * coloured lines for a person at a terminal (LOG_FORMAT, by default chosen by whether stdout is a
 * terminal). Every line of a request carries its id as `reqId`.
 */
export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): FastifyServerOptions['logger'] {
  if (config.logFormat === 'json') return { level: config.logLevel };
  // Loaded only for pretty logs: a server logging JSON (every production one) does not load it.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return {
    level: config.logLevel,
    stream: pretty({
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,reqId,req,res,responseTime',
      messageFormat: requestLine,
    }),
  };
}

/** `[id] incoming request GET /api/me` and `[id] request completed 200 in 1.2 ms`; other lines as they are. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const request = log.req as { method?: string; url?: string } | undefined;
  const response = log.res as { statusCode?: number } | undefined;
  let line = `${log.reqId === undefined ? '' : `[${String(log.reqId)}] `}${String(log[messageKey] ?? '')}`;
  if (request?.method !== undefined) line += ` ${request.method} ${request.url ?? ''}`;
  if (response?.statusCode !== undefined) line += ` ${response.statusCode} in ${Number(log.responseTime).toFixed(1)} ms`;
  return line;
}

/**
 * The server's logger, made before the app so that start-up (waiting for the database) and the
 * dependency monitor write to the same log as the requests. `false`: silent (tests).
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  setting: boolean | { level: string } | undefined,
): FastifyBaseLogger {
  if (setting === false) return pino({ level: 'silent' });
  const options = (typeof setting === 'object' ? setting : loggerOptions(config)) as LoggerOptions & {
    stream?: DestinationStream;
  };
  const { stream, ...rest } = options;
  return (stream === undefined ? pino(rest) : pino(rest, stream)) as FastifyBaseLogger;
}

/**
 * Fastify's request log lines, except the serving path's (routes with `config.serving`: teasers,
 * beacons, clicks) below LOG_LEVEL debug: two JSON objects per teasers answer would be most of
 * what the log holds and a good part of the answer's CPU; the request metrics count those
 * requests per route and status instead (docs/operating.md, Logs). Errors are logged as for any route.
 */
export function requestLogController(logLevel: string): LogController {
  const verbose = logLevel === 'debug' || logLevel === 'trace';
  return new (class extends LogController {
    override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
      if (verbose || request.routeOptions?.config?.serving !== true) super.incomingRequest(request, reply, metadata);
    }

    override requestCompleted(
      error: Error | null | undefined,
      request: FastifyRequest,
      reply: FastifyReply,
      metadata?: Record<string, unknown>,
    ): void {
      if (verbose || error || request.routeOptions?.config?.serving !== true)
        super.requestCompleted(error, request, reply, metadata);
    }
  })();
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes pino's child (with the request id among its bindings) only when
 * a line is written at an enabled level. Fastify makes a child per request, and making one (its
 * bindings serialized into a string) was a few per cent of a `GET /api/me` answer's CPU while,
 * at the usual levels, most requests write no line at all. Methods on the prototype, not bound
 * per instance: nothing is allocated per request but the object itself.
 */
class DeferredChildLogger {
  private readonly parent: Logger;
  private readonly bindings: Record<string, unknown>;
  private made: Logger | undefined;

  constructor(parent: Logger, bindings: Record<string, unknown>) {
    this.parent = parent;
    this.bindings = bindings;
  }

  private real(): Logger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  private write(level: LevelName, line: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.real()[level] as (...line: unknown[]) => void)(...line);
  }

  fatal(...line: unknown[]): void {
    this.write('fatal', line);
  }

  error(...line: unknown[]): void {
    this.write('error', line);
  }

  warn(...line: unknown[]): void {
    this.write('warn', line);
  }

  info(...line: unknown[]): void {
    this.write('info', line);
  }

  debug(...line: unknown[]): void {
    this.write('debug', line);
  }

  trace(...line: unknown[]): void {
    this.write('trace', line);
  }

  silent(): void {}

  child(...childArguments: Parameters<Logger['child']>): FastifyBaseLogger {
    return this.real().child(...childArguments) as FastifyBaseLogger;
  }
}

/**
 * Fastify's `childLoggerFactory`: a deferred child (above) unless the route sets its own log level
 * or serializers, which pino's child applies at once. The server's logger is always pino's
 * (createLogger).
 */
export function requestChildLogger(
  parent: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: { level?: string; serializers?: unknown },
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) {
    return parent.child(bindings, options as Parameters<FastifyBaseLogger['child']>[1]);
  }
  return new DeferredChildLogger(parent as Logger, bindings) as unknown as FastifyBaseLogger;
}
