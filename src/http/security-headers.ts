import type { FastifyInstance } from 'fastify';

/**
 * The Content-Security-Policy of the web app and of the API's own answers: only this origin's
 * files, no inline script, no framing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * What publishers' pages embed (the loader script, teasers, click links, pixels, ad images) must
 * load from any site, and the interactive API reference runs inline script: these keep only the
 * headers that cannot hurt embedding.
 */
const EMBEDDED_PREFIXES = ['/api/serve/', '/api/img/', '/api/docs'];

/** Security headers on every answer, set before routing so that error answers carry them too. */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Strict-Transport-Security', 'max-age=31536000');
    reply.header('X-Content-Type-Options', 'nosniff');
    const url = request.url;
    if (!EMBEDDED_PREFIXES.some((prefix) => url.startsWith(prefix))) {
      reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      reply.header('X-Frame-Options', 'DENY');
      reply.header('Referrer-Policy', 'strict-origin-when-cross-origin');
      reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    }
    done();
  });
}
