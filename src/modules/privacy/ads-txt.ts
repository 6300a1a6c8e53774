import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { guardedLookup, urlRefusal } from '../webhooks/index.ts';

/** The line a publisher adds to its site's /ads.txt (IAB ads.txt 1.1): `<network domain>, <publisher id>, DIRECT`. */
export function adsTxtLine(networkDomain: string, publisherId: number): string {
  return `${networkDomain}, ${publisherId}, DIRECT`;
}

/**
 * Whether an ads.txt text has the network's line for a publisher: a record whose domain (case
 * aside) and account id match and whose relationship is DIRECT; comments and blanks are skipped.
 */
export function adsTxtHasLine(text: string, networkDomain: string, publisherId: number): boolean {
  for (const raw of text.split(/\r?\n/)) {
    const line = (raw.split('#')[0] ?? '').trim();
    if (line === '' || /^[a-z_-]+=/i.test(line)) continue;
    const [domain = '', account = '', relationship = ''] = line.split(',').map((field) => field.trim());
    if (
      domain.toLowerCase() === networkDomain.toLowerCase() &&
      account === String(publisherId) &&
      relationship.toUpperCase() === 'DIRECT'
    ) {
      return true;
    }
  }
  return false;
}

export interface AdsTxtFetchOptions {
  /** Loopback and private addresses may be fetched (WEBHOOK_ALLOW_PRIVATE: tests, a closed network). */
  allowPrivate: boolean;
  /** Extra trusted certificates (WEBHOOK_CA_FILE). */
  ca: string | undefined;
  timeoutMs: number;
}

export type AdsTxtCheck = { status: 'found' | 'missing' | 'unreachable'; detail: string };

/** At most this much of an ads.txt is read (the IAB's own crawler reads 1 MB is generous; lines are short). */
const MAX_BYTES = 512 * 1024;

/**
 * Fetches `<site>/ads.txt` and says whether it has the network's line. The fetch goes through the
 * webhook SSRF guard (a public address only, checked where the socket connects), follows no
 * redirect to another host and no more than two in all, and gives up after the timeout.
 */
export async function checkAdsTxt(
  siteUrl: string,
  networkDomain: string,
  publisherId: number,
  options: AdsTxtFetchOptions,
): Promise<AdsTxtCheck> {
  let url: URL;
  try {
    url = new URL('/ads.txt', siteUrl);
  } catch {
    return { status: 'unreachable', detail: 'The site address is not a URL.' };
  }
  for (let redirects = 0; redirects <= 2; redirects += 1) {
    const refusal = await urlRefusal(url, options.allowPrivate);
    if (refusal !== undefined) return { status: 'unreachable', detail: refusal };
    const answer = await fetchText(url, options);
    if ('error' in answer) return { status: 'unreachable', detail: answer.error };
    if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
      const next = new URL(answer.location, url);
      // ads.txt 1.1: a redirect outside the site's own domain is not followed.
      if (next.hostname.replace(/^www\./, '') !== url.hostname.replace(/^www\./, '')) {
        return { status: 'unreachable', detail: `/ads.txt redirects to another host (${next.hostname}).` };
      }
      url = next;
      continue;
    }
    if (answer.status !== 200) return { status: 'unreachable', detail: `/ads.txt answered HTTP ${answer.status}.` };
    return adsTxtHasLine(answer.body, networkDomain, publisherId)
      ? { status: 'found', detail: '' }
      : { status: 'missing', detail: `/ads.txt does not have the line "${adsTxtLine(networkDomain, publisherId)}".` };
  }
  return { status: 'unreachable', detail: '/ads.txt redirects too many times.' };
}

type Answer = { status: number; location: string | undefined; body: string } | { error: string };

function fetchText(url: URL, options: AdsTxtFetchOptions): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outgoing.destroy();
      resolve(answer);
    };
    const transport = url.protocol === 'https:' ? https : http;
    const outgoing = transport.request(
      url,
      {
        method: 'GET',
        headers: { 'User-Agent': 'Nativa ads.txt check', Accept: 'text/plain' },
        lookup: guardedLookup(options.allowPrivate) as never,
        timeout: options.timeoutMs,
        ...(url.protocol === 'https:' && options.ca !== undefined ? { ca: [...rootCertificates, options.ca] } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          if (body.length > MAX_BYTES) finish({ status, location, body: body.slice(0, MAX_BYTES) });
        });
        response.on('end', () => finish({ status, location, body }));
        response.on('error', (error) => finish({ error: `/ads.txt could not be read: ${error.message}` }));
      },
    );
    const deadline = setTimeout(() => finish({ error: '/ads.txt did not answer in time.' }), options.timeoutMs);
    outgoing.on('timeout', () => finish({ error: '/ads.txt did not answer in time.' }));
    outgoing.on('error', (error) => finish({ error: `/ads.txt could not be fetched: ${error.message}` }));
    outgoing.end();
  });
}
