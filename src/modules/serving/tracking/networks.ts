import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import path from 'node:path';
import { projectFile } from '../../../project-files.ts';
import { isPrivateAddress } from './visitor.ts';

/**
 * Which network (autonomous system) an address belongs to, and whether that network is a hosting
 * or cloud provider's: people browse from consumer and mobile networks, robots run in data
 * centres (docs/invalid-traffic.md). Two files feed it:
 *
 * - the ASN table: ip-location-db's `asn` CSV (RouteViews, the five registries and DB-IP's lite
 *   table; CC BY 4.0), rows `first address,last address,asn[,organisation]`, IPv4 and IPv6,
 *   shipped pinned in package.json, or an operator's newer copy;
 * - the hosting list: hosting-asns.tsv beside this file (the networks and where they come from),
 *   or an operator's own.
 *
 * The table is read on the first lookup of a public address (a test server on loopback never
 * reads it) and held as sorted typed arrays: about 7 MB for half a million ranges, searched by
 * bisection. Lookups are cached per /24 (IPv4) or /48 (IPv6): an ASN announces nothing smaller.
 */
export interface NetworkSources {
  /** ASN tables (CSV), read together; the shipped ones when empty. */
  asnFiles: readonly string[];
  /** The hosting list (TSV whose first column is an ASN); the shipped one when undefined. */
  hostingFile: string | undefined;
}

/** The ASN table ip-location-db publishes, IPv4 and IPv6, from the pinned npm package. */
export function shippedAsnFiles(): string[] {
  const require = createRequire(import.meta.url);
  return ['@ip-location-db/asn/asn-ipv4.csv', '@ip-location-db/asn/asn-ipv6.csv'].map((file) => require.resolve(file));
}

export const SHIPPED_HOSTING_FILE = projectFile('src', 'modules', 'serving', 'tracking', 'hosting-asns.tsv');

/** An ASN table: IPv4 ranges as 32-bit numbers, IPv6 ranges by their first 64 bits. */
export interface AsnTable {
  v4Start: Uint32Array;
  v4End: Uint32Array;
  v4Asn: Uint32Array;
  v6Start: BigUint64Array;
  v6End: BigUint64Array;
  v6Asn: Uint32Array;
}

/** The parsed table per set of files (and their modification times): test servers in one process share it. */
const tables = new Map<string, AsnTable>();

/** Reads ASN tables; throws with the file and line when one is not a table. */
export function readAsnTable(files: readonly string[]): AsnTable {
  const key = files.map((file) => `${file}@${statSync(file).mtimeMs}`).join('|');
  const cached = tables.get(key);
  if (cached !== undefined) return cached;
  const v4 = new RangeList<number>(Uint32Array, 1 << 19);
  const v6 = new RangeList<bigint>(BigUint64Array, 1 << 17);
  for (const file of files) {
    const text = readFileSync(file, 'latin1');
    let at = 0;
    let lineNumber = 0;
    // One pass over the text, without an array of its lines: the shipped table has half a million.
    while (at < text.length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      lineNumber += 1;
      const line = text.slice(at, end);
      at = end + 1;
      if (line === '' || line.startsWith('#')) continue;
      const row = parseAsnRow(line);
      if (row === undefined) throw new Error(`${file}:${lineNumber}: expected "first address,last address,asn[,name]"`);
      if (row.family === 4) v4.push(row.start, row.end, row.asn);
      else v6.push(row.start, row.end, row.asn);
    }
  }
  const [v4Start, v4End, v4Asn] = v4.sorted();
  const [v6Start, v6End, v6Asn] = v6.sorted();
  const table: AsnTable = { v4Start, v4End, v4Asn, v6Start, v6End, v6Asn };
  if (tables.size > 4) tables.clear();
  tables.set(key, table);
  return table;
}

type Numeric = number | bigint;
type TypedArrayOf<T extends Numeric> = T extends number ? Uint32Array : BigUint64Array;

/** Ranges appended into growing typed arrays, then sorted by their start (the shipped files already are). */
class RangeList<T extends Numeric> {
  private starts: TypedArrayOf<T>;
  private ends: TypedArrayOf<T>;
  private asns: Uint32Array;
  private length = 0;
  private readonly make: (size: number) => TypedArrayOf<T>;

  constructor(kind: Uint32ArrayConstructor | BigUint64ArrayConstructor, capacity: number) {
    this.make = (size) => new kind(size) as TypedArrayOf<T>;
    this.starts = this.make(capacity);
    this.ends = this.make(capacity);
    this.asns = new Uint32Array(capacity);
  }

  push(start: T, end: T, asn: number): void {
    if (this.length === this.asns.length) {
      const grow = <A extends TypedArrayOf<T> | Uint32Array>(array: A, made: A): A => {
        made.set(array as never);
        return made;
      };
      this.starts = grow(this.starts, this.make(this.length * 2));
      this.ends = grow(this.ends, this.make(this.length * 2));
      this.asns = grow(this.asns, new Uint32Array(this.length * 2));
    }
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.asns[this.length] = asn;
    this.length += 1;
  }

  sorted(): [TypedArrayOf<T>, TypedArrayOf<T>, Uint32Array] {
    const n = this.length;
    const starts = this.starts.subarray(0, n) as TypedArrayOf<T>;
    const ends = this.ends.subarray(0, n) as TypedArrayOf<T>;
    const asns = this.asns.subarray(0, n);
    let inOrder = true;
    for (let index = 1; index < n && inOrder; index += 1) inOrder = (starts[index - 1] as T) <= (starts[index] as T);
    if (inOrder) return [starts.slice() as TypedArrayOf<T>, ends.slice() as TypedArrayOf<T>, asns.slice()];
    const order = Array.from({ length: n }, (_, index) => index).sort((a, b) =>
      (starts[a] as T) < (starts[b] as T) ? -1 : (starts[a] as T) > (starts[b] as T) ? 1 : 0,
    );
    const sortedStarts = this.make(n);
    const sortedEnds = this.make(n);
    const sortedAsns = new Uint32Array(n);
    order.forEach((from, to) => {
      sortedStarts[to] = starts[from] as T;
      sortedEnds[to] = ends[from] as T;
      sortedAsns[to] = asns[from] ?? 0;
    });
    return [sortedStarts, sortedEnds, sortedAsns];
  }
}

type AsnRow = { family: 4; start: number; end: number; asn: number } | { family: 6; start: bigint; end: bigint; asn: number };

/** One row of an ASN table; undefined when it is not one. */
export function parseAsnRow(line: string): AsnRow | undefined {
  const first = line.indexOf(',');
  const second = line.indexOf(',', first + 1);
  if (first < 0 || second < 0) return undefined;
  const third = line.indexOf(',', second + 1);
  const startText = line.slice(0, first);
  const endText = line.slice(first + 1, second);
  const asn = Number(line.slice(second + 1, third < 0 ? undefined : third).trim());
  if (!Number.isInteger(asn) || asn < 0 || asn > 4_294_967_295) return undefined;
  if (startText.includes(':')) {
    const start = ipv6High(startText);
    const end = ipv6High(endText);
    if (start === undefined || end === undefined || end < start) return undefined;
    return { family: 6, start, end, asn };
  }
  const start = ipv4Number(startText);
  const end = ipv4Number(endText);
  if (start === undefined || end === undefined || end < start) return undefined;
  return { family: 4, start, end, asn };
}

/** An IPv4 address as a number; undefined when it is not one. */
export function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    const octet = Number(part);
    if (part === '' || !Number.isInteger(octet) || octet < 0 || octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** The first 64 bits of an IPv6 address; undefined when it is not one. */
export function ipv6High(text: string): bigint | undefined {
  if (isIP(text) !== 6) return undefined;
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 address (::ffff:1.2.3.4) sits in the low 64 bits, which are not kept.
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...new Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  let value = 0n;
  for (let index = 0; index < 4; index += 1) value = (value << 16n) | BigInt(Number.parseInt(groups[index] ?? '0', 16) || 0);
  return value;
}

/** Reads a hosting list: one ASN per line in the first column (tab-separated), `#` comments. */
export function readHostingList(file: string): Set<number> {
  const asns = new Set<number>();
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const text = line.trim();
      if (text === '' || text.startsWith('#') || /^asn\b/i.test(text)) return;
      const asn = Number(text.split('\t')[0]?.replace(/^AS/i, ''));
      if (!Number.isInteger(asn) || asn <= 0 || asn > 4_294_967_295) {
        throw new Error(`${file}:${index + 1}: expected an AS number in the first column`);
      }
      asns.add(asn);
    });
  if (asns.size === 0) throw new Error(`${file}: no AS number in it`);
  return asns;
}

/** What the datacenter rule knows of an address. */
export interface NetworkOf {
  /** The autonomous system announcing it; 0 when unknown (private, loopback, not in the table). */
  asn: number;
  /** The ASN is a hosting or cloud provider's. */
  hosting: boolean;
}

const UNKNOWN_NETWORK: NetworkOf = { asn: 0, hosting: false };
const CACHE_LIMIT = 20_000;

/**
 * The networks of one serving engine: its sources, loaded lazily, reloaded on demand (SIGHUP,
 * `nativa ivt update-lists`). A lookup costs a cache hit for a known /24 (/48), a bisection of
 * the table otherwise.
 */
export class Networks {
  private table: AsnTable | undefined;
  private hosting: Set<number> | undefined;
  private readonly cache = new Map<string, NetworkOf>();
  private sources: NetworkSources;

  constructor(sources: NetworkSources) {
    this.sources = sources;
  }

  /** Forgets what was read: the next lookup reads the sources again (new files, new sources). */
  reload(sources: NetworkSources = this.sources): void {
    this.sources = sources;
    this.table = undefined;
    this.hosting = undefined;
    this.cache.clear();
  }

  /** Reads both files now (start-up checks, the update command's validation). */
  load(): { ranges: number; hostingAsns: number } {
    const table = this.asnTable();
    return { ranges: table.v4Start.length + table.v6Start.length, hostingAsns: this.hostingAsns().size };
  }

  of(ip: string | undefined): NetworkOf {
    if (ip === undefined) return UNKNOWN_NETWORK;
    const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
    const family = isIP(address);
    if (family === 0) return UNKNOWN_NETWORK;
    const key = family === 4 ? address.slice(0, address.lastIndexOf('.')) : prefix48(address);
    let network = this.cache.get(key);
    if (network === undefined) {
      network = this.lookUp(address, family);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, network);
    }
    return network;
  }

  private lookUp(address: string, family: number): NetworkOf {
    if (isPrivateAddress(address)) return UNKNOWN_NETWORK;
    const table = this.asnTable();
    let asn = 0;
    if (family === 4) {
      const value = ipv4Number(address);
      if (value !== undefined) asn = search(table.v4Start, table.v4End, table.v4Asn, value);
    } else {
      const value = ipv6High(address);
      if (value !== undefined) asn = search(table.v6Start, table.v6End, table.v6Asn, value);
    }
    return asn === 0 ? UNKNOWN_NETWORK : { asn, hosting: this.hostingAsns().has(asn) };
  }

  private asnTable(): AsnTable {
    if (this.table === undefined) {
      const files = this.sources.asnFiles.length > 0 ? this.sources.asnFiles : shippedAsnFiles();
      this.table = readAsnTable(files);
    }
    return this.table;
  }

  private hostingAsns(): Set<number> {
    this.hosting ??= readHostingList(this.sources.hostingFile ?? SHIPPED_HOSTING_FILE);
    return this.hosting;
  }
}

/** The last range starting at or before `value`, if it covers it. */
function search<T extends number | bigint>(starts: ArrayLike<T>, ends: ArrayLike<T>, asns: Uint32Array, value: T): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if ((starts[middle] as T) <= value) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (found < 0 || (ends[found] as T) < value) return 0;
  return asns[found] ?? 0;
}

/** The /48 of an IPv6 address, as the cache's key. */
function prefix48(address: string): string {
  const high = ipv6High(address);
  return high === undefined ? address : `v6:${high >> 16n}`;
}

/**
 * Where an operator's lists live in DATA_DIR once `nativa ivt update-lists` copied them there;
 * they win over the configured paths and the shipped files.
 */
export function dataDirSources(dataDir: string, configured: NetworkSources): NetworkSources {
  const folder = path.join(dataDir, 'ivt');
  const asn = path.join(folder, 'asn.csv');
  const hosting = path.join(folder, 'hosting-asns.tsv');
  return {
    asnFiles: existsSync(asn) ? [asn] : configured.asnFiles,
    hostingFile: existsSync(hosting) ? hosting : configured.hostingFile,
  };
}
