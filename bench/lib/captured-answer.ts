import https from 'node:https';

export interface CapturedAnswer {
  body: string;
  /** The answer's headers, less those Node writes itself (Date, Connection, Keep-Alive). */
  headers: Record<string, string>;
}

/**
 * One answer of the server as it was sent, for a replay that repeats its bytes and headers with no
 * work behind them (bench/teasers-profile.ts, bench/openrtb-profile.ts). A GET, or a POST of `body`.
 */
export function captureAnswer(
  url: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<CapturedAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: body === undefined ? 'GET' : 'POST', headers, rejectUnauthorized: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          const kept: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string' && !['date', 'connection', 'keep-alive'].includes(name)) kept[name] = value;
          }
          resolve({ body: text, headers: kept });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
