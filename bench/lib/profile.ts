import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * `BENCH_CPU_PROFILE=<directory>`: the server process's CPU profile of one measured load, written
 * as `<directory>/<name>.cpuprofile` (open it in Chrome's DevTools, or summarize it with
 * `node bench/profile-summary.ts <file>`). The profile covers only that load, not the seeding,
 * the warm-up or the bare route measured beside it, which run in the same process. An empty
 * name profiles nothing (a scenario's later rounds of the same load).
 */
export async function withCpuProfile<Result>(name: string, work: () => Promise<Result>): Promise<Result> {
  const directory = process.env.BENCH_CPU_PROFILE;
  if (directory === undefined || directory === '' || name === '') return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    const file = path.join(directory, `${name.replaceAll(/[^A-Za-z0-9-]+/g, '-')}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`bench: CPU profile written to ${file}\n`);
    session.disconnect();
  }
}
