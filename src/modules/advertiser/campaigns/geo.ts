import type { FieldError } from '../../../errors.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * Two-letter codes the region database names that are not ISO 3166-1 alpha-2 country codes:
 * unions, user-assigned and exceptionally reserved codes, and the alias UK.
 */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'UK', 'AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA', 'XA', 'XB', 'XK']);

/**
 * Whether `code` (upper case) is an ISO 3166-1 alpha-2 country code. Withdrawn codes the region
 * database still names (DD, SU, CS, YU, ZR, BU and others) stay accepted, so that targeting stored
 * with one keeps reading back and saving; the web app offers only the current ones
 * (web/src/components/countries.ts).
 */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  return regionNames.of(code) !== undefined;
}

/**
 * Reads `geo` as an array of codes or a comma-separated string; empty means everywhere. Codes are
 * upper-cased and de-duplicated; an unknown code is the field's 422 entry, naming it.
 */
export function checkGeo(value: unknown, field = 'geo'): string[] | FieldError {
  if (value === undefined || value === null || value === '') return [];
  // Validation coerces a lone string into a one-element array, so every element may be a list.
  const items: unknown[] = Array.isArray(value) ? value : [value];
  if (items.some((item) => typeof item !== 'string'))
    return { field, message: 'Must be a list of ISO 3166-1 alpha-2 country codes.' };
  const parts = (items as string[]).flatMap((item) => item.split(','));
  const codes: string[] = [];
  const problems: string[] = [];
  for (const part of parts) {
    const code = String(part).trim().toUpperCase();
    if (code === '') continue;
    if (!isCountryCode(code)) problems.push(`${String(part)} is not an ISO 3166-1 alpha-2 country code.`);
    else if (!codes.includes(code)) codes.push(code);
  }
  if (problems.length > 0) return { field, message: problems.join(' ') };
  if (codes.length > 250) return { field, message: 'At most 250 countries.' };
  return codes;
}
