import path from 'node:path';

interface TestEvent {
  type: string;
  data: { nesting?: number; file?: string; details?: { duration_ms?: number } };
}

const ROOT = path.join(import.meta.dirname, '..', '..');

/**
 * A test reporter that adds up each file's top-level tests' time and writes them as one JSON
 * object (file → ms) to its destination; scripts/test.ts merges them into
 * test-results/durations.json and starts the slowest files first next time.
 */
export default async function* durationsReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const times: Record<string, number> = {};
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const { file, details } = event.data;
    if (file === undefined || details?.duration_ms === undefined) continue;
    const relative = path.relative(ROOT, file);
    times[relative] = Math.round((times[relative] ?? 0) + details.duration_ms);
  }
  yield `${JSON.stringify(times, null, 1)}\n`;
}
