/** Parsed command line: words, `--key value` / `--key=value` options, and bare `--flags`. */
export interface ParsedArgs {
  words: string[];
  options: Record<string, string>;
  flags: Set<string>;
}

export const BARE_FLAGS = new Set(['json', 'help', 'h', 'version', 'exit']);

export function parseArgs(argv: string[]): ParsedArgs {
  const words: string[] = [];
  const options: Record<string, string> = {};
  const flags = new Set<string>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [key = '', inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) options[key] = inline;
    else if (BARE_FLAGS.has(key) || index + 1 >= argv.length || (argv[index + 1] ?? '').startsWith('--')) flags.add(key);
    else options[key] = argv[++index] ?? '';
  }
  return { words, options, flags };
}
