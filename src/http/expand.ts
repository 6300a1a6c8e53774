import type { FastifyRequest } from 'fastify';

/** The relations a client asked to embed with `expand=a,b`, limited to those the route offers. */
export function readExpand<T extends string>(request: FastifyRequest, offered: readonly T[]): Set<T> {
  const raw = (request.query as { expand?: unknown } | undefined)?.expand;
  if (typeof raw !== 'string') return new Set();
  const asked = new Set(raw.split(',').map((name) => name.trim()));
  return new Set(offered.filter((name) => asked.has(name)));
}
