import type { ServerResponse } from 'node:http';

/**
 * What an answer of the serving path is written to: a Fastify reply, or the fast path's
 * `FastReply`. The functions that set a serving answer's headers and send it take this, so both
 * paths run the same code (docs/adr/0056).
 */
export interface AnswerReply {
  header(name: string, value: string): unknown;
  code(status: number): unknown;
  type(contentType: string): unknown;
  serializer(serialize: (payload: unknown) => string): unknown;
  /** A serving answer sends text, bytes or nothing; a route's typed reply declares its own payload. */
  send(payload?: unknown): unknown;
  redirect(url: string, status: number): unknown;
}

const TEXT_TYPE = 'text/plain; charset=utf-8';
const OCTET_TYPE = 'application/octet-stream';

/**
 * The fast path's reply: Fastify's reply for the answers the serving path sends (text, a buffer,
 * nothing, a redirect), writing the same headers the same way (lower-case names, `Set-Cookie`
 * gathered, `Content-Length` counted, no body headers on a 204), and counting the answer in the
 * request metrics when the response closes.
 */
export class FastReply implements AnswerReply {
  private status = 200;
  private readonly headers: Record<string, string | string[]> = {};
  private serialize: ((payload: unknown) => string) | undefined;
  private readonly response: ServerResponse;
  private readonly method: string;

  constructor(response: ServerResponse, method: string) {
    this.response = response;
    this.method = method;
  }

  header(name: string, value: string): this {
    const key = name.toLowerCase();
    const existing = this.headers[key];
    if (key === 'set-cookie' && existing !== undefined) {
      this.headers[key] = [...[existing].flat(), value];
    } else {
      this.headers[key] = value;
    }
    return this;
  }

  code(status: number): this {
    this.status = status;
    return this;
  }

  type(contentType: string): this {
    return this.header('content-type', contentType);
  }

  serializer(serialize: (payload: unknown) => string): this {
    this.serialize = serialize;
    return this;
  }

  redirect(url: string, status: number): this {
    return this.header('location', url).code(status).send();
  }

  /** The answer's status (also of an answer never sent: the request metrics count it). */
  get statusCode(): number {
    return this.status;
  }

  /** Whether the answer has been written (headers and body). */
  get sent(): boolean {
    return this.response.headersSent;
  }

  send(payload?: string | Buffer): this {
    const { headers, status } = this;
    if (payload === undefined) {
      if (status >= 200 && status !== 204 && status !== 304 && this.method !== 'HEAD') headers['content-length'] = '0';
      this.response.writeHead(status, headers);
      this.response.end();
      return this;
    }
    if (status === 204 || (status >= 100 && status < 200)) {
      delete headers['content-type'];
      delete headers['content-length'];
      this.response.writeHead(status, headers);
      this.response.end();
      return this;
    }
    let body = payload;
    if (typeof body !== 'string') headers['content-type'] ??= OCTET_TYPE;
    else if (headers['content-type'] === undefined) headers['content-type'] = TEXT_TYPE;
    else if (this.serialize !== undefined) body = this.serialize(body);
    headers['content-length'] = String(Buffer.byteLength(body));
    this.response.writeHead(status, headers);
    this.response.end(body);
    return this;
  }
}
