// Runs one load with wrk (Debian's, C and LuaJIT): a far lighter generator than autocannon, so a
// ratio measured with it reflects the server more than the load tool (both share the 2 cores).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LoadResult, LoadSpec } from './load.ts';

const run = promisify(execFile);

/**
 * Counts responses by status class in each thread, and prints the result as one JSON line when
 * done. A dynamic spec (paths, tokens or header sets to rotate) adds a request() function; without
 * one wrk sends one prepared request, as fast as it can.
 */
function script(dynamic: boolean): string {
  const common = `
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("first", #threads)
end
counts = {0, 0, 0, 0, 0}
sent = 0
function response(status, headers, body)
  local class = math.floor(status / 100)
  counts[class] = counts[class] + 1
end
function done(summary, latency, requests)
  local total = {0, 0, 0, 0, 0}
  local all = 0
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for i = 1, 5 do total[i] = total[i] + c[i] end
    all = all + thread:get("sent")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requestsPerSecond":%.1f,"p50":%.3f,"p99":%.3f,"total":%d,"errors":%d,"timeouts":%d,' ..
    '"statuses":{"1xx":%d,"2xx":%d,"3xx":%d,"4xx":%d,"5xx":%d},"requestsSent":%d}\\n',
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, e.connect + e.read + e.write, e.timeout,
    total[1], total[2], total[3], total[4], total[5], all))
end
`;
  if (!dynamic) return `${common}\nfunction request() sent = sent + 1 return wrk.request() end\n`;
  return `${common}
local paths, tokens, sets, base = {}, {}, {}, {}
local position, step = 0, 1
-- Each thread takes every step-th entry from its own first one: a link is used once.
function init(args)
  for line in io.lines(args[1]) do
    local kind, rest = line:sub(1, 1), line:sub(3)
    if kind == "P" then table.insert(paths, rest)
    elseif kind == "T" then table.insert(tokens, rest)
    elseif kind == "S" then
      local set = {}
      for name, value in rest:gmatch("([^\\t:]+): ([^\\t]*)") do set[name] = value end
      table.insert(sets, set)
    end
  end
  step = tonumber(args[2]) or 1
  position = first - 1
end
function request()
  position = position + step
  sent = sent + 1
  local headers = {}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  if #tokens > 0 then headers["Auth-Token"] = tokens[position % #tokens + 1] end
  if #sets > 0 then for name, value in pairs(sets[position % #sets + 1]) do headers[name] = value end end
  return wrk.format("GET", paths[position % #paths + 1], headers)
end
`;
}

/** Loads a URL with wrk (one thread unless BENCH_WRK_THREADS says otherwise) and returns its figures. */
export async function loadWithWrk(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.url);
  const dynamic = (spec.paths?.length ?? 0) > 1 || (spec.tokens?.length ?? 0) > 0 || (spec.headerSets?.length ?? 0) > 0;
  const directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-wrk-'));
  try {
    const scriptFile = path.join(directory, 'load.lua');
    writeFileSync(scriptFile, script(dynamic));
    const inputFile = path.join(directory, 'input.txt');
    const lines = [
      ...(spec.paths ?? [url.pathname + url.search]).map((entry) => `P ${entry}`),
      ...(spec.tokens ?? []).map((token) => `T ${token}`),
      ...(spec.headerSets ?? []).map(
        (set) =>
          `S ${Object.entries(set)
            .map(([name, value]) => `${name}: ${value}`)
            .join('\t')}`,
      ),
    ];
    writeFileSync(inputFile, `${lines.join('\n')}\n`);
    const threads = Number(process.env.BENCH_WRK_THREADS ?? 1);
    const headerArguments = Object.entries(spec.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    // bash's `times` prints the CPU time of its children (wrk) after the run.
    const { stdout } = await run(
      'bash',
      [
        '-c',
        'wrk "$@"; status=$?; times; exit $status',
        'wrk',
        `-t${threads}`,
        `-c${spec.connections}`,
        `-d${spec.durationSeconds}s`,
        '--timeout',
        '10s',
        ...headerArguments,
        '-s',
        scriptFile,
        spec.url,
        '--',
        inputFile,
        String(threads),
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const line = stdout
      .trim()
      .split('\n')
      .findLast((entry) => entry.startsWith('{'));
    if (line === undefined) throw new Error(`wrk printed no result:\n${stdout}`);
    const [user = 0, system = 0] = [...(stdout.trim().split('\n').at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
      (match) => (Number(match[1]) * 60 + Number(match[2])) * 1_000_000,
    );
    return { ...(JSON.parse(line) as Omit<LoadResult, 'tool'>), loadToolCpuMicros: user + system, tool: 'wrk' };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
