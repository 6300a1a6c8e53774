import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** The configured public base URL (e.g. `https://ads.example.com`), if any. */
    publicUrl: string | undefined;
  }
}

/** The absolute URL of `path` as the client reached this server (or as PUBLIC_URL says). */
export function absoluteUrl(request: FastifyRequest, path: string): string {
  const base = request.server.publicUrl ?? `https://${request.host}`;
  return `${base}${path}`;
}

/** 201 Created with `Location` holding the new resource's absolute URL. */
export function created<T>(request: FastifyRequest, reply: FastifyReply, path: string, body: T): T {
  reply.code(201).header('Location', absoluteUrl(request, path));
  return body;
}
