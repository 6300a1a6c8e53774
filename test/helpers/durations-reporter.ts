import { appendFileSync } from 'node:fs';
import path from 'node:path';

interface TestEvent {
  type: string;
  data: { nesting?: number; file?: string; name?: string; details?: { duration_ms?: number } };
}

const ROOT = path.join(import.meta.dirname, '..', '..');

/**
 * A test reporter that adds up each file's top-level tests' time and writes them as one JSON
 * object (file → ms) to its destination; scripts/test.ts merges them into
 * test-results/durations.json and starts the slowest files first next time.
 *
 * With TEST_PROGRESS_FILE set it also appends there, as they happen, a line when a file's process
 * starts (`start`), when any test ends (`test`) and when a file ends (`end`), each with the file's
 * path: scripts/test.ts stops a lane in which nothing has ended for too long and names the files
 * that started and did not end. (One reporter for both: a third one per lane makes Node warn of
 * too many listeners on its test stream.)
 */
export default async function* durationsReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const times: Record<string, number> = {};
  const progress = process.env.TEST_PROGRESS_FILE;
  for await (const event of source) {
    const { file, name, nesting, details } = event.data;
    if (file === undefined) continue;
    const relative = path.relative(ROOT, file);
    if (progress !== undefined && progress !== '') {
      // With a process per file, the runner first dequeues the file itself, named as it was given.
      if (event.type === 'test:dequeue' && nesting === 0 && name !== undefined && path.resolve(name) === file)
        appendFileSync(progress, `start ${relative}\n`);
      else if (event.type === 'test:pass' || event.type === 'test:fail') appendFileSync(progress, `test ${relative}\n`);
      else if (event.type === 'test:summary') appendFileSync(progress, `end ${relative}\n`);
    }
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || nesting !== 0) continue;
    if (details?.duration_ms === undefined) continue;
    times[relative] = Math.round((times[relative] ?? 0) + details.duration_ms);
  }
  yield `${JSON.stringify(times, null, 1)}\n`;
}
