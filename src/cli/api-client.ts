import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { rootCertificates } from 'node:tls';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export class ApiClientError extends Error {
  readonly response: ApiResponse;
  constructor(response: ApiResponse) {
    const body = response.body as { message?: string; errors?: { field: string; message: string }[] } | undefined;
    const details = body?.errors?.map((error) => `\n  ${error.field}: ${error.message}`).join('') ?? '';
    super(`${response.status}: ${body?.message ?? 'request failed'}${details}`);
    this.response = response;
  }
}

/**
 * A small HTTPS client of the Nativa API for the CLI. It trusts the system's CAs and, for a
 * local server with a generated certificate, the one in DATA_DIR/tls.
 */
const MAX_RATE_LIMIT_RETRIES = 5;

export class ApiClient {
  readonly baseUrl: string;
  private readonly token: string;
  private readonly agent: https.Agent;

  constructor(baseUrl: string, token: string, dataDir: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.token = token;
    const localCert = path.join(dataDir, 'tls', 'cert.pem');
    const ca = existsSync(localCert) ? [...rootCertificates, readFileSync(localCert, 'utf8')] : undefined;
    this.agent = new https.Agent({ ca, keepAlive: true });
  }

  /**
   * One API call. A 429 is waited out (Retry-After, a few times) rather than reported: the CLI's
   * scripts and the demo make bursts of calls with one token, and the limit is per second.
   */
  async request(method: string, apiPath: string, body?: unknown): Promise<ApiResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(method, apiPath, body);
      } catch (error) {
        if (!(error instanceof ApiClientError) || error.response.status !== 429 || attempt >= MAX_RATE_LIMIT_RETRIES) throw error;
        const retryAfter = Number(error.response.headers['retry-after'] ?? 1);
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000));
      }
    }
  }

  /** A call whose successful answer is binary (a backup): its body as bytes. */
  async download(method: string, apiPath: string): Promise<Buffer> {
    const response = await this.send(method, apiPath, undefined, true);
    return response.body as Buffer;
  }

  private send(method: string, apiPath: string, body?: unknown, binary = false): Promise<ApiResponse> {
    const url = new URL(`${this.baseUrl}${apiPath}`);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = https.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            'Auth-Token': this.token,
            ...(payload
              ? { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': Buffer.byteLength(payload) }
              : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const bytes = Buffer.concat(chunks);
            if (binary && (response.statusCode ?? 0) < 400) {
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes });
              return;
            }
            const text = bytes.toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // Not JSON: keep the text.
            }
            const result = { status: response.statusCode ?? 0, headers: response.headers, body: parsed };
            if (result.status >= 400) reject(new ApiClientError(result));
            else resolve(result);
          });
        },
      );
      request.on('error', reject);
      if (payload) request.write(payload);
      request.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
