import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `condition` returns a truthy value and returns it, looking every `intervalMs`, and
 * fails naming `what` after `timeoutMs`. For state the test cannot be told about (a child
 * process, another instance, a background task): the wait ends as soon as the state is reached,
 * and a state never reached fails instead of hanging.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
