import type { Metadata } from 'sharp';
import { type FieldError, validationFailed } from '../../errors.ts';
import { loadSharp } from './sharp.ts';

/** Bounds of an uploaded ad image. */
export const IMAGE_LIMITS = {
  /** Decoded bytes; two images in base64 must fit the request body limit (8 MiB by default). */
  maxBytes: 2 * 1024 * 1024,
  minPixels: 100,
  maxPixels: 5000,
} as const;

const DATA_URI = /^data:image\/(png|jpeg|jpg);base64,([A-Za-z0-9+/\s]*={0,2})$/;

type ImageFormat = 'png' | 'jpeg';

/** The format the bytes really are, from their signature; undefined for anything else. */
export function sniffFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

/**
 * Decodes a `data:image/png|jpeg;base64,...` URI and checks that it really is an image of the
 * declared type: by its signature and by decoding it fully, within the byte and pixel bounds.
 * Returns the bytes, or the problem to report for `field`.
 */
export async function readImageDataUri(value: string, field: string): Promise<Buffer | FieldError> {
  const match = DATA_URI.exec(value);
  if (!match)
    return { field, message: 'Must be a PNG or JPEG picture (sent as data:image/png;base64,… or data:image/jpeg;base64,…).' };
  const declared: ImageFormat = match[1] === 'png' ? 'png' : 'jpeg';
  const payload = (match[2] ?? '').replace(/\s+/g, '');
  if (payload.length > Math.ceil((IMAGE_LIMITS.maxBytes * 4) / 3) + 4) {
    return { field, message: `The image must not be larger than ${IMAGE_LIMITS.maxBytes} bytes.` };
  }
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) return { field, message: 'The image is empty.' };
  if (bytes.length > IMAGE_LIMITS.maxBytes) {
    return { field, message: `The image must not be larger than ${IMAGE_LIMITS.maxBytes} bytes.` };
  }
  const actual = sniffFormat(bytes);
  if (actual === undefined) return { field, message: 'The data is not a PNG or JPEG image.' };
  if (actual !== declared)
    return { field, message: `The data is a ${actual.toUpperCase()} image but is declared as image/${match[1]}.` };
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return { field, message: 'The image cannot be decoded.' };
  }
  if (metadata.format !== actual) return { field, message: 'The data is not a PNG or JPEG image.' };
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  const { minPixels, maxPixels } = IMAGE_LIMITS;
  if (width < minPixels || height < minPixels || width > maxPixels || height > maxPixels) {
    return {
      field,
      message: `The image is ${width}x${height} pixels; each side must be from ${minPixels} to ${maxPixels} pixels.`,
    };
  }
  try {
    // Decoding every pixel (not only the header) rejects truncated or corrupt files.
    await sharp(bytes, { failOn: 'error' }).raw().toBuffer();
  } catch {
    return { field, message: 'The image cannot be decoded.' };
  }
  return bytes;
}

/** Reads several image fields at once, reporting every failing one in one 422. */
export async function readImages<K extends string>(values: Record<K, string>): Promise<Record<K, Buffer>> {
  const problems: FieldError[] = [];
  const result = {} as Record<K, Buffer>;
  for (const field of Object.keys(values) as K[]) {
    const read = await readImageDataUri(values[field], field);
    if (Buffer.isBuffer(read)) result[field] = read;
    else problems.push(read);
  }
  if (problems.length > 0) throw validationFailed(problems);
  return result;
}
