import { isIP } from 'node:net';

/**
 * An address as Nativa stores it (docs/privacy.md): its network only, IPv4 /24 (`203.0.113.0`)
 * and IPv6 /48 (`2001:db8:1::`), never the full address. An IPv4 address in IPv6 form
 * (`::ffff:203.0.113.7`, how Node reports IPv4 on a dual-stack socket) is IPv4; a zone suffix is
 * dropped. Anything that is not an IP address is null. Migration 0640 applies the same rule in SQL
 * (`nativa_truncated_address`) to rows written before.
 */
export function truncatedAddress(ip: string | undefined): string | null {
  if (ip === undefined) return null;
  const bare = ip.split('%')[0] ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  const address = mapped?.[1] ?? bare;
  const family = isIP(address);
  if (family === 4) return `${address.split('.').slice(0, 3).join('.')}.0`;
  if (family === 6) return truncatedIpv6(address);
  return null;
}

/** The first three groups (48 bits) of an IPv6 address, written the way PostgreSQL writes them (`2001:db8:1::`). */
function truncatedIpv6(address: string): string {
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::a.b.c.d) is two groups wide.
  const tailWidth = tailGroups.length + (tailGroups.at(-1)?.includes('.') ? 1 : 0);
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailWidth).fill('0'), ...tailGroups];
  const kept = groups.slice(0, 3).map((group) => Number.parseInt(group, 16).toString(16));
  while (kept.length > 0 && kept[kept.length - 1] === '0') kept.pop();
  return kept.length === 0 ? '::' : `${kept.join(':')}::`;
}

/** The stored form for a text column: the truncated address, or '' when there is none. */
export const truncatedAddressText = (ip: string | undefined): string => truncatedAddress(ip) ?? '';
