// Runs one autocannon load in its own process so the load generator does not share an event loop
// (or a CPU's worth of JavaScript) with the server it measures. Input: a JSON LoadSpec in argv[2];
// output: one JSON line with the result.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { LoadSpec } from './load.ts';

const argument = process.argv[2] ?? '{}';
const spec = JSON.parse(argument.startsWith('@') ? readFileSync(argument.slice(1), 'utf8') : argument) as LoadSpec;
let next = 0;
const tokens = spec.tokens ?? [];
const paths = spec.paths ?? [new URL(spec.url).pathname + new URL(spec.url).search];
const headerSets = spec.headerSets ?? [];

const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSeconds,
  ...(spec.amount === undefined ? {} : { amount: spec.amount }),
  headers: spec.headers,
  ...(spec.body === undefined ? {} : { method: 'POST' as const, body: spec.body }),
  ...(spec.overallRate === undefined ? {} : { overallRate: spec.overallRate }),
  requests: [
    {
      setupRequest: (request) => {
        next += 1;
        const headers: Record<string, string> = { ...(request.headers as Record<string, string> | undefined) };
        if (tokens.length > 0) headers['Auth-Token'] = tokens[next % tokens.length] ?? '';
        if (headerSets.length > 0) Object.assign(headers, headerSets[next % headerSets.length]);
        return { ...request, headers, path: paths[next % paths.length] ?? '/' };
      },
    },
  ],
});

const cpu = process.cpuUsage(cpuBefore);
const statuses: Record<string, number> = {};
for (const key of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) statuses[key] = result[key];
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    requestsSent: next,
    loadToolCpuMicros: cpu.user + cpu.system,
  })}\n`,
);
