// node bench/profile-summary.ts FILE.cpuprofile [N]: where a CPU profile's busy time went, by
// function (self time) and by file (self time of its functions), the N largest of each (20).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = '20'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node bench/profile-summary.ts FILE.cpuprofile [N]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
for (const [index, id] of profile.samples.entries()) {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
}
const idle = new Set(['(idle)', '(program)']);
let busy = 0;
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id)?.callFrame;
  if (frame === undefined || idle.has(frame.functionName)) continue;
  busy += micros;
  const place = frame.url.replace(/^file:\/\/.*?\/node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
  const name = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  const where = place === '' ? '(native)' : place;
  byFile.set(where, (byFile.get(where) ?? 0) + micros);
}
const print = (title: string, entries: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
    process.stdout.write(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}\n`);
  }
};
process.stdout.write(`${file}: ${(busy / 1000).toFixed(0)} ms busy of the profile\n`);
print('self time by function', byFunction);
print('self time by file', byFile);
