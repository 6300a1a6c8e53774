import { badRequest } from '../../../http/errors.ts';
import type { AdEntry } from '../snapshot/snapshot.ts';

/**
 * OpenRTB Native 1.2: the request's assets (what the page can show) and the response markup
 * Nativa answers in a bid's `adm` (what to show, where a click goes, what to fire when it shows).
 */

/** Image asset types (Native 1.2, 7.4): 1 icon, 3 main image. */
const IMAGE_ICON = 1;
const IMAGE_MAIN = 3;
/** Data asset types (Native 1.2, 7.3): 1 sponsored, 2 description, 6 price, 11 display URL. */
const DATA_SPONSORED = 1;
const DATA_DESCRIPTION = 2;
const DATA_PRICE = 6;
const DATA_DISPLAY_URL = 11;
/** Event types and methods (Native 1.2, 7.6 and 7.7): 1 impression, 2 viewable (MRC 50%); method 1 image pixel. */
const EVENT_VIEWABLE_MRC50 = 2;
const METHOD_IMAGE = 1;

/** The side of the square images Nativa serves (teasers' `image`). */
export const IMAGE_SIDE = 328;

export interface NativeAssetRequest {
  id: number;
  required: boolean;
  kind: 'title' | 'image' | 'data' | 'other';
  /** Title and data: the longest text the page shows. */
  length?: number;
  /** Image: 1 icon, 3 main; data: its type. */
  type?: number;
}

/**
 * The assets of a Native request, which OpenRTB carries as a JSON string in `imp.native.request`
 * (or, from some exchanges, as the object itself; Native 1.0 wrapped it in `{"native": ...}`).
 * Throws a 400 naming what is wrong.
 */
export function readNativeRequest(raw: unknown, impId: string): NativeAssetRequest[] {
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw badRequest(`imp ${impId}: native.request is not valid JSON.`);
    }
  }
  if (parsed !== null && typeof parsed === 'object' && 'native' in parsed) parsed = (parsed as { native: unknown }).native;
  const assets = parsed !== null && typeof parsed === 'object' ? (parsed as { assets?: unknown }).assets : undefined;
  if (!Array.isArray(assets) || assets.length === 0) throw badRequest(`imp ${impId}: native.request has no assets.`);
  return assets.map((asset, index) => readAsset(asset, `imp ${impId}: native.request.assets[${index}]`));
}

function readAsset(asset: unknown, where: string): NativeAssetRequest {
  if (asset === null || typeof asset !== 'object') throw badRequest(`${where} is not an object.`);
  const entry = asset as Record<string, unknown>;
  if (!Number.isInteger(entry.id)) throw badRequest(`${where}.id must be an integer.`);
  const id = entry.id as number;
  const required = entry.required === 1 || entry.required === true;
  const numberIn = (value: unknown, key: string): number | undefined => {
    if (value === null || typeof value !== 'object') return undefined;
    const found = (value as Record<string, unknown>)[key];
    return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
  };
  if (entry.title !== undefined) return { id, required, kind: 'title', length: numberIn(entry.title, 'len') };
  if (entry.img !== undefined) return { id, required, kind: 'image', type: numberIn(entry.img, 'type') ?? IMAGE_MAIN };
  if (entry.data !== undefined) {
    const type = numberIn(entry.data, 'type');
    if (type === undefined) throw badRequest(`${where}.data.type is required.`);
    return { id, required, kind: 'data', type, length: numberIn(entry.data, 'len') };
  }
  return { id, required, kind: 'other' };
}

export interface NativeAd {
  ad: AdEntry;
  /** Absolute URL of the ad's square image, or null. */
  imageUrl: string | null;
  /** The signed click link (`/api/serve/click/...`). */
  clickUrl: string;
  /** The view pixel carrying the signed impression token. */
  viewPixelUrl: string;
}

/**
 * The Native 1.2 response for one ad, or undefined when the ad cannot fill an asset the page
 * requires (a required image of an ad without one, a required video).
 */
export function nativeResponse(assets: readonly NativeAssetRequest[], native: NativeAd): object | undefined {
  const answered: object[] = [];
  for (const asset of assets) {
    const filled = fill(asset, native);
    if (filled === undefined) {
      if (asset.required) return undefined;
      continue;
    }
    answered.push({ id: asset.id, ...(asset.required ? { required: 1 } : {}), ...filled });
  }
  return {
    ver: '1.2',
    assets: answered,
    link: { url: native.clickUrl },
    // The pixel counts one viewable view per token, once: a renderer that fires both the legacy
    // imptrackers and the eventtrackers counts it once.
    imptrackers: [native.viewPixelUrl],
    eventtrackers: [{ event: EVENT_VIEWABLE_MRC50, method: METHOD_IMAGE, url: native.viewPixelUrl }],
  };
}

function fill(asset: NativeAssetRequest, { ad, imageUrl }: NativeAd): object | undefined {
  switch (asset.kind) {
    case 'title':
      return { title: { text: truncate(ad.title, asset.length), len: truncate(ad.title, asset.length).length } };
    case 'image':
      if (imageUrl === null || (asset.type !== IMAGE_MAIN && asset.type !== IMAGE_ICON)) return undefined;
      return { img: { type: asset.type, url: imageUrl, w: IMAGE_SIDE, h: IMAGE_SIDE } };
    case 'data': {
      const value = dataValue(asset.type, ad);
      if (value === undefined || value === '') return undefined;
      return { data: { type: asset.type, value: truncate(value, asset.length) } };
    }
    default:
      return undefined;
  }
}

function dataValue(type: number | undefined, ad: AdEntry): string | undefined {
  if (type === DATA_SPONSORED || type === DATA_DISPLAY_URL) return ad.domain;
  if (type === DATA_DESCRIPTION) return ad.description;
  if (type === DATA_PRICE) return ad.priceText;
  return undefined;
}

function truncate(text: string, length: number | undefined): string {
  if (length === undefined || length <= 0 || [...text].length <= length) return text;
  return [...text].slice(0, length).join('');
}
