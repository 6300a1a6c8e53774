import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiClient } from './api-client.ts';
import type { ParsedArgs } from './args.ts';

export interface CommandContext {
  args: ParsedArgs;
  json: boolean;
  /** A client of the operator API (NATIVA_URL, NATIVA_TOKEN or DATA_DIR/operator.token). */
  client(): ApiClient;
}

export interface Command {
  /** The words that select the command, e.g. `users create`. */
  name: string;
  usage: string;
  summary: string;
  run(context: CommandContext): Promise<void>;
}

export class UsageError extends Error {}

/** A required option or word, or a usage error naming it. */
export function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

export function operatorClient(env: Record<string, string | undefined> = process.env): ApiClient {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const url = env.NATIVA_URL || `https://localhost:${env.PORT || '8443'}`;
  let token = env.NATIVA_TOKEN;
  const tokenFile = path.join(dataDir, 'operator.token');
  if (!token && existsSync(tokenFile)) token = readFileSync(tokenFile, 'utf8').trim();
  if (!token) throw new UsageError(`no operator token: set NATIVA_TOKEN or start the server once so that ${tokenFile} exists`);
  return new ApiClient(url, token, dataDir);
}
