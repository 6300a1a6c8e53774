/**
 * The environment of a child process that must not see the test runner's own variables: only PATH
 * and `vars`, plus Node's compile cache when the runner set one (scripts/test.ts), which halves a
 * CLI process's start-up CPU and changes nothing it does.
 */
export function cleanEnv(vars: Record<string, string>): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH ?? '', ...(cache === undefined ? {} : { NODE_COMPILE_CACHE: cache }), ...vars };
}
