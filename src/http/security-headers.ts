import type { FastifyReply } from 'fastify';
import type { AnswerReply } from './fast-reply.ts';

/**
 * The Content-Security-Policy of the web app's pages: only this origin's files, no inline script,
 * no framing.
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
 * The policy of the API's JSON and XML answers: a document that loads nothing and may not be
 * framed. A browser that opens one as a page gets nothing to run, and the answer stays short
 * (each of the app's headers is sent, encrypted, with every API answer).
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * What publishers' pages embed (the loader script, teasers, click links, pixels, ad images) must
 * load from any site, and the interactive API reference runs inline script: these keep only the
 * headers that cannot hurt embedding.
 */
const EMBEDDED_PREFIXES = ['/api/serve/', '/api/img/', '/api/docs'];

/**
 * Sets the security headers of an answer; called from the conventions' onRequest hook (before
 * routing, so that error answers carry them too). Every answer: HSTS and nosniff. API answers: the
 * short policy. The app's pages: the full policy and the framing, referrer and opener headers.
 */
export function setSecurityHeaders(url: string, reply: FastifyReply): void {
  reply.header('Strict-Transport-Security', 'max-age=31536000');
  reply.header('X-Content-Type-Options', 'nosniff');
  if (url.startsWith('/api/')) {
    if (!EMBEDDED_PREFIXES.some((prefix) => url.startsWith(prefix))) {
      reply.header('Content-Security-Policy', API_CONTENT_SECURITY_POLICY);
    }
    return;
  }
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'strict-origin-when-cross-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
}

/**
 * The security headers of a serving answer (a route with `config.serving`: teasers, beacons, click
 * links), which publishers' pages fetch across origins or visitors follow: nosniff, so a browser
 * never runs a JSON answer as script or style (it also lets the browser's cross-origin read
 * blocking recognise it), and on the click link, a top-level navigation that is often a visitor's
 * first contact with this host, HSTS. No policy (nothing in a JSON answer or a redirect runs), and
 * no HSTS on the fetched answers: a browser learns it from the loader script and the pages, and
 * it would be one more header on the hottest answers. Both paths set them with this function: the
 * conventions' hook for Fastify, the serving fast path for its answers.
 */
export function setServingSecurityHeaders(reply: Pick<AnswerReply, 'header'>, navigation: boolean): void {
  if (navigation) reply.header('Strict-Transport-Security', 'max-age=31536000');
  reply.header('X-Content-Type-Options', 'nosniff');
}
