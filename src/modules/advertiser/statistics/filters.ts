import { Type } from '@sinclair/typebox';
import { invalidField } from '../../../http/errors.ts';
import { Count } from '../../../http/input-types.ts';
import { GOALS } from '../../statistics/record-events.ts';

/** `targetId` as every advertiser statistics route accepts it. */
export const TargetIdParameter = Type.Optional(
  Count('Which conversions count as orders: 0 all (default), 1 purchase, 2 registration, 3 intermediate goal.', {
    maximum: Math.max(...Object.values(GOALS)),
  }),
);

const ID_LIST = /^\s*\d{1,10}\s*(,\s*\d{1,10}\s*)*$/;

/**
 * Reads a comma-separated list of numeric ids (`"1,2,3"`), naming `field` in the 422 when it is
 * malformed. An absent or empty value is "no filter" (undefined).
 */
export function readIdList(value: unknown, field: string): number[] | undefined {
  if (value === undefined || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !ID_LIST.test(text)) {
    throw invalidField(field, 'Must be numeric ids separated by commas.');
  }
  const ids = text.split(',').map((part) => Number(part.trim()));
  if (ids.some((id) => id < 1 || id > 2_147_483_647)) throw invalidField(field, 'Ids must be from 1 to 2147483647.');
  return [...new Set(ids)];
}
