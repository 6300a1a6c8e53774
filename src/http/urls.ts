import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** The configured public base URL (e.g. `https://ads.example.com`), if any. */
    publicUrl: string | undefined;
    /** Where the server was told to listen (HOST, PORT): the base of e-mail links without PUBLIC_URL. */
    configuredAddress: { host: string; port: number };
  }
}

/**
 * The absolute URL of `path` as the client reached this server (or as PUBLIC_URL says), for the
 * answer to that client only; a link that goes to someone else is an `emailLink`.
 */
export function absoluteUrl(
  request: Pick<FastifyRequest, 'host'> & { server: { publicUrl: string | undefined } },
  path: string,
): string {
  const base = request.server.publicUrl ?? `https://${request.host}`;
  return `${base}${path}`;
}

/** 201 Created with `Location` holding the new resource's absolute URL. */
export function created<T>(request: FastifyRequest, reply: FastifyReply, path: string, body: T): T {
  reply.code(201).header('Location', absoluteUrl(request, path));
  return body;
}

/** The server's own address as configured: HOST (`localhost` for a wildcard) and the port it listens on. */
export function ownUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `https://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/**
 * The base of links sent in e-mails: PUBLIC_URL, else the server's own configured address. Never
 * a request header: whoever asks for a password reset chooses the request's `Host`, and the
 * victim's link must not lead to their domain.
 */
export function emailLinkBase(app: FastifyInstance): string {
  if (app.publicUrl !== undefined) return app.publicUrl.replace(/\/+$/, '');
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : app.configuredAddress.port;
  return ownUrl(app.configuredAddress.host, port);
}

/** The absolute URL of `path` for an e-mail (see `emailLinkBase`). */
export function emailLink(request: FastifyRequest, path: string): string {
  return `${emailLinkBase(request.server)}${path}`;
}
