import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CliApi, cliApi, type NativaClient } from './api.ts';
import type { ParsedArgs } from './args.ts';

export interface CommandContext {
  args: ParsedArgs;
  json: boolean;
  /** The SDK's client of the operator API (NATIVA_URL, NATIVA_TOKEN or DATA_DIR/operator.token). */
  client(): NativaClient;
}

export interface Command {
  /** The words that select the command, e.g. `users create`. */
  name: string;
  usage: string;
  summary: string;
  run(context: CommandContext): Promise<void>;
}

export class UsageError extends Error {}

/** Options every command accepts. */
const COMMON_FLAGS = new Set(['json', 'help', 'h']);

/**
 * Refuses an option the command's usage does not name, an option without its value, and an ID or
 * count that is not a whole number, naming the option each time (other values go to the API, whose
 * 422 names the field).
 */
export function checkOptions(command: Command, args: ParsedArgs): void {
  const declared = new Map<string, string | undefined>();
  for (const match of command.usage.matchAll(/--([a-z][a-z-]*)(?: ([^\s\]]+))?/g)) {
    declared.set(match[1] ?? '', match[2]);
  }
  for (const flag of args.flags) {
    if (COMMON_FLAGS.has(flag)) continue;
    if (!declared.has(flag)) throw new UsageError(`unknown option --${flag}`);
    const placeholder = declared.get(flag);
    if (placeholder !== undefined) throw new UsageError(`--${flag} needs a value (${placeholder})`);
  }
  for (const [name, value] of Object.entries(args.options)) {
    if (!declared.has(name)) throw new UsageError(`unknown option --${name}`);
    const placeholder = declared.get(name);
    if ((placeholder === 'N' || placeholder === 'ID') && !/^[0-9]+$/.test(value))
      throw new UsageError(`--${name} must be a whole number, not '${value}'`);
  }
}

/** One page of a list, 100 items long, as the `--page N` option asks. */
export const pageQuery = (page: string | undefined) => ({ 'per-page': 100, page: Number(page ?? 1) });

/** An `--option ID` (checked a whole number by checkOptions) as a number, or undefined when not given. */
export const optionalId = (value: string | undefined): number | undefined => (value ? Number(value) : undefined);

/** A required option or word, or a usage error naming it. */
export function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

export function operatorApi(env: Record<string, string | undefined> = process.env): CliApi {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const url = env.NATIVA_URL || `https://localhost:${env.PORT || '8443'}`;
  let token = env.NATIVA_TOKEN;
  const tokenFile = path.join(dataDir, 'operator.token');
  if (!token && existsSync(tokenFile)) token = readFileSync(tokenFile, 'utf8').trim();
  if (!token) throw new UsageError(`no operator token: set NATIVA_TOKEN or start the server once so that ${tokenFile} exists`);
  return cliApi(url, token, dataDir);
}
