import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { ApiError, createNativaClient, type NativaClient } from '../../sdk/src/index.ts';
import { httpsFetch } from './https-fetch.ts';

export { data } from '../../sdk/src/index.ts';
export { ApiError, type NativaClient };

/** The SDK's client with the connection it keeps open (closed when the command ends). */
export interface CliApi {
  client: NativaClient;
  close(): void;
}

/**
 * The typed SDK client as the CLI uses it: it trusts the system's CAs and, for a local server
 * with a generated certificate, the one in DATA_DIR/tls. A 429 is waited out (Retry-After, up to
 * four times) rather than reported: the CLI's scripts and the demo make bursts of calls with one
 * token, and the limit is per second.
 */
export function cliApi(baseUrl: string, token: string, dataDir: string): CliApi {
  const localCert = path.join(dataDir, 'tls', 'cert.pem');
  const ca = existsSync(localCert) ? [...rootCertificates, readFileSync(localCert, 'utf8')] : undefined;
  const transport = httpsFetch(ca);
  const client = createNativaClient({ baseUrl: baseUrl.replace(/\/+$/, ''), token, fetch: transport.fetch, maxRetries: 4 });
  return { client, close: transport.close };
}

/** A refused call as the CLI prints it: the status and message, then each failing field on its own line. */
export function describeApiError(error: ApiError): string {
  const details = error.errors.map((failure) => `\n  ${failure.field}: ${failure.message}`).join('');
  return `${error.status}: ${error.message || 'request failed'}${details}`;
}

/**
 * A value the user typed, passed on as the type the API expects without checking it here: the
 * API checks it, and its 422 names the field (the CLI checks only the shape of its own options).
 */
export const asGiven = <T>(value: unknown): T => value as T;
