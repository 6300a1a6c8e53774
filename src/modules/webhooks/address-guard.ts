import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/**
 * The server-side request forgery guard of webhook deliveries: which addresses an endpoint may
 * resolve to. Loopback, private, link-local, carrier-grade NAT, multicast, documentation and other
 * special-purpose ranges are refused unless the operator allows private addresses
 * (WEBHOOK_ALLOW_PRIVATE=true). IPv6 forms that embed an IPv4 address are judged by that address:
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96 and the local 64:ff9b:1::/48) and 6to4 (2002::/16, the address in bits 16–47);
 * Teredo (2001::/32, inside 2001::/23) is refused whole.
 */

export type AddressClass = 'public' | 'loopback' | 'private';

/** IPv4 ranges as [first octets as a 32-bit number, prefix length, class]. */
const V4_RANGES: readonly (readonly [string, number, AddressClass])[] = [
  ['0.0.0.0', 8, 'private'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'private'],
  ['192.0.2.0', 24, 'private'],
  ['192.88.99.0', 24, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'private'],
  ['198.51.100.0', 24, 'private'],
  ['203.0.113.0', 24, 'private'],
  ['224.0.0.0', 4, 'private'],
  ['240.0.0.0', 4, 'private'],
];

const V6_RANGES: readonly (readonly [string, number, AddressClass])[] = [
  ['::', 128, 'private'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'private'],
  ['2001::', 23, 'private'],
  ['2001:db8::', 32, 'private'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'private'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'private'],
];

function v4ToNumber(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** The 128 bits of an IPv6 address as a bigint (the address is valid: isIP said 6). */
function v6ToBigInt(address: string): bigint {
  let text = address.split('%')[0] ?? address;
  // A trailing dotted IPv4 part (::ffff:10.0.0.1) becomes two hexadecimal groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const value = v4ToNumber(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function inV4Range(value: number, base: string, prefix: number): boolean {
  const shift = 32 - prefix;
  return Math.floor(value / 2 ** shift) === Math.floor(v4ToNumber(base) / 2 ** shift);
}

function classifyV4(value: number): AddressClass {
  for (const [base, prefix, kind] of V4_RANGES) if (inV4Range(value, base, prefix)) return kind;
  if (value === 0xffffffff) return 'private';
  return 'public';
}

/** Public, loopback or private (every other special-purpose range) for an IPv4 or IPv6 literal. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 4) return classifyV4(v4ToNumber(address));
  if (family !== 6) return 'private';
  const value = v6ToBigInt(address);
  const upper96 = value >> 32n;
  const low32 = Number(value & 0xffffffffn);
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d)
  // and NAT64 (64:ff9b::a.b.c.d, 64:ff9b:1::/48) reach an IPv4 host.
  if (
    upper96 === 0xffffn ||
    upper96 === 0xffff0000n ||
    (upper96 === 0n && value > 1n) ||
    upper96 === 0x0064ff9b0000000000000000n ||
    value >> 80n === 0x0064ff9b0001n
  ) {
    return classifyV4(low32);
  }
  // 6to4 (2002:a.b.c.d::/48) reaches the IPv4 host of its bits 16–47, through a relay.
  if (value >> 112n === 0x2002n) {
    const embedded = classifyV4(Number((value >> 80n) & 0xffffffffn));
    if (embedded !== 'public') return embedded;
  }
  for (const [base, prefix, kind] of V6_RANGES) {
    const shift = BigInt(128 - prefix);
    if (value >> shift === v6ToBigInt(base) >> shift) return kind;
  }
  return 'public';
}

export function addressAllowed(address: string, allowPrivate: boolean): boolean {
  return allowPrivate || classifyAddress(address) === 'public';
}

export class RefusedAddress extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connections that resolves the host and refuses the connection when any
 * of its addresses is not allowed. The socket connects to the address checked here, so a DNS
 * answer that changes between a check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: options.family === 6 ? 6 : options.family === 4 ? 4 : 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !addressAllowed(entry.address, allowPrivate));
      if (refused)
        return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, which is not a public address`), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(new RefusedAddress(`${hostname} has no address`), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Resolves a URL's host (or reads its literal address) and says why it may not be delivered to, if so. */
export async function urlRefusal(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an https:// URL.';
  if (url.username || url.password) return 'Must not contain a user name or password.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await new Promise<string[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found.map((entry) => entry.address)))),
      );
    } catch {
      return `The host ${host} could not be resolved.`;
    }
  }
  const classes = addresses.map(classifyAddress);
  const allLoopback = classes.length > 0 && classes.every((kind) => kind === 'loopback');
  if (url.protocol === 'http:' && !(allowPrivate && allLoopback)) return 'Must be an https:// URL.';
  const refused = addresses.find((address) => !addressAllowed(address, allowPrivate));
  if (refused) return `The host resolves to ${refused}, a private or reserved address; webhooks go to public addresses only.`;
  return undefined;
}
