import { DEVICES, type DeviceId } from '../../statistics/index.ts';

const MAX_ID = 2_147_483_647;

/** A coefficient's place: a whole site (`blockId` 0) or one block ("informer") of it. */
export interface SiteTarget {
  siteId: number;
  blockId: number;
}

/** Reads the API's site id: `123` is site 123 as a whole, `123s45` is block 45 of site 123. */
export function parseSiteTarget(text: string): SiteTarget | undefined {
  const match = /^(\d{1,10})(?:s(\d{1,10}))?$/.exec(text);
  if (!match) return undefined;
  const siteId = Number(match[1]);
  const blockId = match[2] === undefined ? 0 : Number(match[2]);
  if (siteId < 1 || siteId > MAX_ID || blockId > MAX_ID || (match[2] !== undefined && blockId < 1)) return undefined;
  return { siteId, blockId };
}

export const formatSiteTarget = (target: SiteTarget): string =>
  target.blockId === 0 ? String(target.siteId) : `${target.siteId}s${target.blockId}`;

export type DeviceName = keyof typeof DEVICES;
export const DEVICE_NAMES = Object.keys(DEVICES) as DeviceName[];

/** A device type by name (`desktop`, `mobile`, `tablet`) or number (1, 2, 3). */
export function parseDevice(text: string): DeviceId | undefined {
  const lower = text.toLowerCase();
  if (lower in DEVICES) return DEVICES[lower as DeviceName];
  const number = Number(text);
  return (Object.values(DEVICES) as number[]).includes(number) && /^\d$/.test(text) ? (number as DeviceId) : undefined;
}
