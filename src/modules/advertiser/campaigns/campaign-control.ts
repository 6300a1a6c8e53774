import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../../errors.ts';
import { Money, Text } from '../../../http/input-types.ts';
import { microsToAmount } from '../../../money.ts';
import { checkMoney } from '../../../shared/money-input.ts';
import type { Unchecked } from '../../../shared/unchecked.ts';
import { BROWSER_FAMILIES, DEVICE_TYPES, OS_FAMILIES, readTarget } from '../../serving/index.ts';

/**
 * A campaign's flight dates, lifetime budget, pacing, device, operating-system and browser targets and
 * site lists (Nativa extensions, docs/advertiser-campaigns.md, docs/adr/0042): their request and
 * response fields, their rules, and their columns.
 */

export const PACING_MODES = ['asap', 'even'] as const;
export type PacingMode = (typeof PACING_MODES)[number];

const MAX_TARGETS = 50;
const MAX_SITES = 1000;

const DateTime = (what: string) =>
  Type.Union([Text(`${what} An ISO 8601 date-time.`, { maxLength: 40 }), Type.Null()], {
    description: `${what} An ISO 8601 date-time: with an offset or Z it is that instant; without one (2026-12-01T09:00) it is read on the clock of the campaign’s \`timeZone\` (the platform’s when none). Null clears (extension).`,
  });

const TargetList = (what: string, families: readonly string[]) =>
  Type.Union(
    [
      Type.Array(Text('A family, optionally :major.', { maxLength: 32 }), { maxItems: MAX_TARGETS }),
      Text('Comma-separated.', { maxLength: 2000 }),
      Type.Null(),
    ],
    {
      description: `${what} the campaign serves to: families (${families.join(', ')}), each optionally with \`:major\` for one major version (\`android:14\`), as an array or a comma-separated string; empty or null (default) means every one (extension).`,
    },
  );

const SiteList = (what: string) =>
  Type.Union(
    [
      Type.Array(Type.Union([Type.Integer({ minimum: 1 }), Text('A domain.', { maxLength: 253 })]), { maxItems: MAX_SITES }),
      Type.Null(),
    ],
    {
      description: `${what} Site ids or domains (a domain takes its subdomains too); empty or null (default) means no list (extension).`,
    },
  );

/** The request fields, the same on create, change and bulk change. */
export const controlBodyProperties = {
  startsAt: Type.Optional(DateTime('When the campaign starts serving.')),
  endsAt: Type.Optional(DateTime('When the campaign stops serving (exclusive); after startsAt.')),
  totalBudget: Type.Optional(
    Money('Lifetime budget: the campaign stops once it has spent this much in all; 0 (default) means none (extension).', {
      minimum: 0,
    }),
  ),
  pacing: Type.Optional(
    Type.Union(
      PACING_MODES.map((mode) => Type.Literal(mode)),
      {
        description:
          'asap (default): spend as fast as the auction allows; even: spread the day’s budget (maxmoney, or what is left of totalBudget over the days to endsAt) across the day (docs/serving.md, Pacing) (extension).',
      },
    ),
  ),
  devices: Type.Optional(
    Type.Union(
      [
        Type.Array(
          Type.Union(
            DEVICE_TYPES.map((device) => Type.Literal(device)),
            { description: 'A device type.' },
          ),
          { maxItems: DEVICE_TYPES.length },
        ),
        Text('Comma-separated.', { maxLength: 100 }),
        Type.Null(),
      ],
      {
        description: `Device types the campaign serves to: ${DEVICE_TYPES.join(', ')}, as an array or a comma-separated string; empty or null (default) means every one (extension). The per-device coefficients still apply to the types it serves.`,
      },
    ),
  ),
  os: Type.Optional(TargetList('Operating systems', OS_FAMILIES)),
  browsers: Type.Optional(TargetList('Browsers', BROWSER_FAMILIES)),
  siteAllow: Type.Optional(SiteList('Serve only on these sites.')),
  siteBlock: Type.Optional(SiteList('Never serve on these sites.')),
};

/** The response fields: each present only when set. */
export const controlProperties = {
  startsAt: Type.Optional(
    Type.String({ description: 'When it starts serving, UTC ISO 8601; present only when set (extension).' }),
  ),
  endsAt: Type.Optional(Type.String({ description: 'When it stops serving, UTC ISO 8601; present only when set (extension).' })),
  totalBudget: Type.Optional(Type.Number({ description: 'Lifetime budget, currency units; present only when set (extension).' })),
  pacing: Type.Optional(
    Type.Literal('even', { description: '`even` when the campaign paces its spend evenly; absent: asap (extension).' }),
  ),
  devices: Type.Optional(Type.Array(Type.String(), { description: 'Targeted device types; present only when set (extension).' })),
  os: Type.Optional(Type.Array(Type.String(), { description: 'Targeted operating systems; present only when set (extension).' })),
  browsers: Type.Optional(Type.Array(Type.String(), { description: 'Targeted browsers; present only when set (extension).' })),
  siteAllow: Type.Optional(
    Type.Array(Type.Union([Type.Integer(), Type.String()]), {
      description: 'Sites it serves on only: ids and domains; present only when set (extension).',
    }),
  ),
  siteBlock: Type.Optional(
    Type.Array(Type.Union([Type.Integer(), Type.String()]), {
      description: 'Sites it never serves on: ids and domains; present only when set (extension).',
    }),
  ),
};

export interface ControlInput {
  startsAt?: string | null;
  endsAt?: string | null;
  totalBudget?: number | string;
  pacing?: PacingMode;
  devices?: string | string[] | null;
  os?: string | string[] | null;
  browsers?: string | string[] | null;
  siteAllow?: (number | string)[] | null;
  siteBlock?: (number | string)[] | null;
}

/** The columns of the fields sent (absent fields are left as they are). */
export interface ControlColumns {
  starts_at?: Date | null;
  ends_at?: Date | null;
  total_budget_micros?: number;
  pacing?: PacingMode;
  device_targets?: string[];
  os_targets?: string[];
  browser_targets?: string[];
  site_allow?: string[];
  site_block?: string[];
}

export interface ControlRow {
  starts_at: Date | string | null;
  ends_at: Date | string | null;
  total_budget_micros: number | string;
  pacing: string;
  device_targets: string[];
  os_targets: string[];
  browser_targets: string[];
  site_allow: string[];
  site_block: string[];
}

/**
 * The rules of the control fields: their columns, or the 422 entries. `timeZone` reads
 * date-times without an offset. Written for input its schema may have refused.
 */
export function checkControl(input: Unchecked<ControlInput>, timeZone: string, problems: FieldError[]): ControlColumns {
  const columns: ControlColumns = {};
  for (const [field, column] of [
    ['startsAt', 'starts_at'],
    ['endsAt', 'ends_at'],
  ] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null || value === '') {
      columns[column] = null;
      continue;
    }
    const instant = typeof value === 'string' ? readDateTime(value, timeZone) : undefined;
    if (instant === undefined)
      problems.push({ field, message: 'Must be an ISO 8601 date-time (2026-12-01T09:00 or with an offset).' });
    else columns[column] = instant;
  }
  if (columns.starts_at && columns.ends_at && columns.starts_at >= columns.ends_at)
    problems.push({ field: 'endsAt', message: 'Must be after startsAt.' });
  const devices = checkDevices(input.devices, problems);
  if (devices !== undefined) columns.device_targets = devices;
  if (input.totalBudget !== undefined) {
    const micros = checkMoney(input.totalBudget, 'totalBudget', { sign: 'non-negative' });
    if (typeof micros === 'number') columns.total_budget_micros = micros;
    else problems.push(micros);
  }
  if (input.pacing === 'asap' || input.pacing === 'even') columns.pacing = input.pacing;
  const os = checkTargets(input.os, 'os', OS_FAMILIES, problems);
  if (os !== undefined) columns.os_targets = os;
  const browsers = checkTargets(input.browsers, 'browsers', BROWSER_FAMILIES, problems);
  if (browsers !== undefined) columns.browser_targets = browsers;
  const allow = checkSites(input.siteAllow, 'siteAllow', problems);
  if (allow !== undefined) columns.site_allow = allow;
  const block = checkSites(input.siteBlock, 'siteBlock', problems);
  if (block !== undefined) columns.site_block = block;
  return columns;
}

/** Device types as sent (an array or a comma-separated string), each once, in the API's order. */
function checkDevices(value: unknown, problems: FieldError[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return [];
  const items = Array.isArray(value) ? value : [value];
  const chosen = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string') {
      problems.push({ field: 'devices', message: 'Must be a list of device types: desktop, mobile, tablet.' });
      return undefined;
    }
    for (const part of item.split(',')) {
      const device = part.trim().toLowerCase();
      if (device === '') continue;
      if (!(DEVICE_TYPES as readonly string[]).includes(device)) {
        problems.push({ field: 'devices', message: `${part.trim()} is not a device type: desktop, mobile or tablet.` });
        return undefined;
      }
      chosen.add(device);
    }
  }
  return DEVICE_TYPES.filter((device) => chosen.has(device));
}

function checkTargets(value: unknown, field: string, families: readonly string[], problems: FieldError[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return [];
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const targets: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') {
      problems.push({ field, message: 'Must be a list of families, each optionally with :major.' });
      return undefined;
    }
    for (const part of item.split(',')) {
      if (part.trim() === '') continue;
      const target = readTarget(part, families);
      if (typeof target !== 'string') {
        problems.push({ field, message: target.problem });
        return undefined;
      }
      if (!targets.includes(target)) targets.push(target);
    }
  }
  if (targets.length > MAX_TARGETS) problems.push({ field, message: `At most ${MAX_TARGETS} targets.` });
  return targets;
}

/** A site list's entries as stored: ids as digits, domains as lower-case hosts without `www.`. */
function checkSites(value: unknown, field: string, problems: FieldError[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ field, message: 'Must be a list of site ids and domains.' });
    return undefined;
  }
  const entries: string[] = [];
  for (const item of value) {
    const entry = typeof item === 'number' && Number.isInteger(item) && item > 0 ? String(item) : siteDomain(item);
    if (entry === undefined) {
      problems.push({ field, message: `${String(item)} is neither a site id nor a domain.` });
      return undefined;
    }
    if (!entries.includes(entry)) entries.push(entry);
  }
  return entries;
}

/** `Shop.Example.com`, `https://www.shop.example.com/x` → `shop.example.com`; undefined when not a domain. */
function siteDomain(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (/^\d+$/.test(text)) return String(Number(text)) === text && Number(text) > 0 ? text : undefined;
  let host = text;
  try {
    if (/^[a-z]+:\/\//.test(text)) host = new URL(text).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/^www\./, '');
  return /^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z0-9-]{2,63}$/.test(host) ? host : undefined;
}

/**
 * An ISO 8601 date-time as an instant: with `Z` or an offset as written, without one on the
 * clock of `timeZone` (the offset it has there at that wall time).
 */
export function readDateTime(value: string, timeZone: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(
    value.trim(),
  );
  if (match === null) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', zone] = match;
  if (zone !== undefined && match[4] === undefined) return undefined;
  const wall = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const check = new Date(wall);
  if (check.getUTCDate() !== Number(day) || check.getUTCMonth() !== Number(month) - 1 || Number(hour) > 23) return undefined;
  if (zone !== undefined) {
    const instant = new Date(value.trim());
    return Number.isNaN(instant.getTime()) ? undefined : instant;
  }
  // The offset at the wall time read as UTC, then at the instant it gives (right across a change).
  let instant = wall - offsetMs(wall, timeZone);
  instant = wall - offsetMs(instant, timeZone);
  return new Date(instant);
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** How far `timeZone`'s clock is ahead of UTC at an instant, in ms. */
function offsetMs(instant: number, timeZone: string): number {
  let format = offsetFormatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = Number(part.value);
  const local = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return local - Math.floor(instant / 1000) * 1000;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The response fields of a campaign row (each only when set). */
export function toControl(row: ControlRow) {
  const total = Number(row.total_budget_micros);
  return {
    ...(row.starts_at === null ? {} : { startsAt: iso(row.starts_at) }),
    ...(row.ends_at === null ? {} : { endsAt: iso(row.ends_at) }),
    ...(total > 0 ? { totalBudget: microsToAmount(total) } : {}),
    ...(row.pacing === 'even' ? { pacing: 'even' as const } : {}),
    ...(row.device_targets.length > 0 ? { devices: row.device_targets } : {}),
    ...(row.os_targets.length > 0 ? { os: row.os_targets } : {}),
    ...(row.browser_targets.length > 0 ? { browsers: row.browser_targets } : {}),
    ...(row.site_allow.length > 0 ? { siteAllow: row.site_allow.map(siteEntry) } : {}),
    ...(row.site_block.length > 0 ? { siteBlock: row.site_block.map(siteEntry) } : {}),
  };
}

const siteEntry = (entry: string) => (/^\d+$/.test(entry) ? Number(entry) : entry);
