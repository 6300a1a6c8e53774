import https from 'node:https';
import { XMLParser } from 'fast-xml-parser';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The raw body (files such as Parquet exports). */
  body: Buffer;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = any>(): T;
  /** The body parsed as XML, from the root `response` element down. */
  xml<T = any>(): T;
  header(name: string): string | undefined;
}

export interface RequestOptions {
  token?: string;
  /** A JSON body (sent as application/json unless `contentType` says otherwise). */
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string | Buffer;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
}

const xmlParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'item' });

/** A real HTTPS client for tests: trusts the test server's certificate and nothing else. */
export class TestClient {
  readonly baseUrl: string;
  readonly defaultToken: string | undefined;
  private readonly agent: https.Agent;

  constructor(baseUrl: string, ca: string, defaultToken?: string, agent?: https.Agent) {
    this.baseUrl = baseUrl;
    this.defaultToken = defaultToken;
    this.agent = agent ?? new https.Agent({ ca, keepAlive: true });
  }

  /** The same server and trust, another token. */
  as(token: string | undefined): TestClient {
    return new TestClient(this.baseUrl, '', token, this.agent);
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string | number> = { ...(options.headers ?? {}) };
    const token = options.token ?? this.defaultToken;
    if (token !== undefined && headers['Auth-Token'] === undefined) headers['Auth-Token'] = token;
    if (options.accept !== undefined) headers.Accept = options.accept;
    let payload: string | Buffer | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined) {
      headers['Content-Type'] = options.contentType ?? 'application/json; charset=UTF-8';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      // A forged Host header (tests of Host poisoning) must not become the TLS server name.
      const servername = headers.Host === undefined ? undefined : '';
      const request = https.request(
        new URL(path, this.baseUrl),
        { method, headers, agent: this.agent, servername },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks);
            const text = body.toString('utf8');
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text,
              body,
              json: () => JSON.parse(text),
              xml: () => xmlParser.parse(text).response,
              header: (name) => {
                const value = response.headers[name.toLowerCase()];
                return Array.isArray(value) ? value.join(', ') : value;
              },
            });
          });
        },
      );
      request.on('error', reject);
      if (payload !== undefined) request.write(payload);
      request.end();
    });
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('POST', path, { ...options, body });
  }
  put(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('PUT', path, { ...options, body });
  }
  patch(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('PATCH', path, { ...options, body });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  close(): void {
    this.agent.destroy();
  }
}
