import type { FastifyReply } from 'fastify';

/**
 * Sends a small HTML page as it is. A browser's Accept names `application/xml;q=0.9`, so such a
 * request is negotiated to XML and its reply carries the XML serializer, which would otherwise
 * wrap the page's text in `<response>` and show the markup as text.
 */
export function sendHtmlPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .serializer((payload: unknown) => String(payload))
    .type('text/html; charset=utf-8')
    .send(html);
}
