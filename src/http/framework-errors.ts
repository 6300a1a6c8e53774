import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { localisedErrorBody } from './errors.ts';
import { negotiateMessageLanguage } from './message-languages.ts';
import { negotiateFormat } from './negotiation.ts';
import { toXml } from './xml.ts';

/**
 * Errors Fastify and Node answer before a request reaches a route (a malformed percent-encoding
 * or an overlong parameter in the path; a request line or header block Node's parser refuses)
 * get the same `{name, message, code, status}` body as every other error.
 */

const MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'The URL is not valid (malformed percent-encoding).',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

/** Fastify's `frameworkErrors` option: the router refused the URL; no hook has run yet. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const language = negotiateMessageLanguage(request.headers['accept-language']);
  const { body, contentLanguage } = localisedErrorBody(language, status, {
    message: MESSAGES[error.code] ?? 'The request is not valid.',
  });
  const xml = wantsXml(request.headers.accept);
  if (contentLanguage !== undefined) reply.header('Content-Language', contentLanguage);
  reply
    .code(status)
    .header('Vary', 'Accept, Accept-Language')
    .type(xml ? 'application/xml; charset=UTF-8' : 'application/json; charset=utf-8')
    .send(xml ? toXml(body) : JSON.stringify(body));
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request took too long to arrive.' },
  HPE_INVALID_METHOD: { status: 400, message: 'The request method is not valid.' },
};

/** Where a refused request's `Accept` header can still be read: the bytes Node's parser saw. */
const ACCEPT_LINE = /\r\naccept:[ \t]*([^\r\n]*)/i;
const ACCEPT_LANGUAGE_LINE = /\r\naccept-language:[ \t]*([^\r\n]*)/i;

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request, so there is no request
 * object, only the socket. Writes a complete HTTP/1.1 response by hand and closes the connection,
 * as Node's own handler does.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const known = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, message: 'The request is not valid HTTP.' };
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 16_384).toString('latin1') : '';
    const language = negotiateMessageLanguage(ACCEPT_LANGUAGE_LINE.exec(raw)?.[1]);
    const { body, contentLanguage } = localisedErrorBody(language, known.status, { message: known.message });
    const accept = ACCEPT_LINE.exec(raw)?.[1];
    const xml = wantsXml(accept);
    const text = xml ? toXml(body) : JSON.stringify(body);
    const type = xml ? 'application/xml; charset=UTF-8' : 'application/json; charset=utf-8';
    const languageLine = contentLanguage === undefined ? '' : `Content-Language: ${contentLanguage}\r\n`;
    socket.write(
      `HTTP/1.1 ${known.status} ${body.name}\r\nContent-Type: ${type}\r\n${languageLine}Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/** XML when Accept asks for it; JSON otherwise, also when Accept itself is refused (that 415 can wait). */
function wantsXml(accept: string | undefined): boolean {
  try {
    return negotiateFormat(accept) === 'xml';
  } catch {
    return false;
  }
}
