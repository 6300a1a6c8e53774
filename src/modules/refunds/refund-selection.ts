import { isIP } from 'node:net';
import { type FieldError, validationFailed } from '../../errors.ts';
import type { Unchecked } from '../../shared/unchecked.ts';
import type { ClickSelection } from './refund-repository.ts';

/** The selection fields of a refund request, as the operator sends them. */
export interface SelectionInput {
  clickIds?: string[];
  siteId?: number;
  blockId?: number;
  network?: string;
  from?: string;
  to?: string;
}

/**
 * Whether a text is an address range PostgreSQL's `inet` reads the same way: an IPv4 or IPv6
 * address, optionally with a prefix length (`203.0.113.0/24`, `2001:db8::/32`); no prefix is one address.
 */
export function isNetwork(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  if (rest.length > 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * A refund selects either click ids, or a time range (`from` inclusive, `to` exclusive) with at
 * least one of a site, a block and an address range; never both kinds at once.
 */
export function selectionErrors(input: Unchecked<SelectionInput>): FieldError[] {
  const errors: FieldError[] = [];
  const byIds = input.clickIds !== undefined;
  const rangeFields = (['siteId', 'blockId', 'network', 'from', 'to'] as const).filter((field) => input[field] !== undefined);
  if (byIds && rangeFields.length > 0) {
    errors.push({ field: 'clickIds', message: `Select by click ids or by range (${rangeFields.join(', ')}), not both.` });
    return errors;
  }
  if (byIds) return errors;
  if (input.from === undefined) errors.push({ field: 'from', message: 'Give click ids, or a time range from/to.' });
  if (input.to === undefined) errors.push({ field: 'to', message: 'Give click ids, or a time range from/to.' });
  if (input.siteId === undefined && input.blockId === undefined && input.network === undefined) {
    errors.push({ field: 'siteId', message: 'A range refund names a site, a block or an address range (network).' });
  }
  if (typeof input.network === 'string' && !isNetwork(input.network)) {
    errors.push({ field: 'network', message: 'Must be an IP address or a range in CIDR notation (203.0.113.0/24).' });
  }
  const from = typeof input.from === 'string' ? Date.parse(input.from) : Number.NaN;
  const to = typeof input.to === 'string' ? Date.parse(input.to) : Number.NaN;
  if (!Number.isNaN(from) && !Number.isNaN(to) && from >= to) errors.push({ field: 'to', message: 'Must be after from.' });
  return errors;
}

/** The checked selection; throws the 422 of selectionErrors. */
export function readSelection(input: SelectionInput): ClickSelection {
  const errors = selectionErrors(input);
  if (errors.length > 0) throw validationFailed(errors);
  if (input.clickIds !== undefined) return { clickIds: input.clickIds };
  return {
    siteId: input.siteId,
    blockId: input.blockId,
    network: input.network,
    from: new Date(input.from as string),
    to: new Date(input.to as string),
  };
}
