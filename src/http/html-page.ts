import type { AnswerReply } from './fast-reply.ts';

/**
 * Sends a small HTML page as it is. A browser's Accept names `application/xml;q=0.9`, so such a
 * request is negotiated to XML and its reply carries the XML serializer, which would otherwise
 * wrap the page's text in `<response>` and show the markup as text.
 */
export function sendHtmlPage<Reply extends AnswerReply>(reply: Reply, status: number, html: string): Reply {
  reply.code(status);
  reply.serializer((payload: unknown) => String(payload));
  reply.type('text/html; charset=utf-8');
  reply.send(html);
  return reply;
}
