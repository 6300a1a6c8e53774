import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSharp } from './sharp.ts';

/** A size an image may be served in, e.g. `{ width: 492, height: 328 }`. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The sizes each role of an ad image is served in; the first is the default (`Image.url`).
 * Rectangles are 3:2 and squares 1:1, the proportions of the teaser layouts the blocks render.
 */
export const IMAGE_SIZES = {
  rectangle: [
    { width: 492, height: 328 },
    { width: 300, height: 200 },
  ],
  square: [
    { width: 328, height: 328 },
    { width: 150, height: 150 },
  ],
} as const satisfies Record<string, readonly ImageSize[]>;

export type ImageRole = keyof typeof IMAGE_SIZES;

const SERVABLE = new Set(Object.values(IMAGE_SIZES).flatMap((sizes) => sizes.map((size) => `${size.width}x${size.height}`)));

/** Whether `WxH` is one of the sizes any image is served in. */
export function isServableSize(size: string): boolean {
  return SERVABLE.has(size);
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * Content-addressed storage of uploaded images on disk: the original bytes under their SHA-256,
 * and each resized JPEG cached beside it the first time it is asked for. The same picture uploaded
 * twice is stored once. Writes go through a temporary name so a reader never sees half a file.
 */
export class ImageStore {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** Stores the bytes (already validated as PNG or JPEG) and returns their content hash. */
  async save(bytes: Buffer): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const folder = this.folderOf(hash);
    const original = path.join(folder, 'original');
    if (!(await exists(original))) {
      await mkdir(folder, { recursive: true });
      await writeAtomically(original, bytes);
    }
    return hash;
  }

  /**
   * The image resized to exactly `size` (cropped to fill, centred) as JPEG, or undefined when no
   * image has that hash. The result is cached on disk, so each size is computed once.
   */
  async resized(hash: string, size: ImageSize): Promise<Buffer | undefined> {
    if (!HASH.test(hash)) return undefined;
    const folder = this.folderOf(hash);
    const cached = path.join(folder, `${size.width}x${size.height}.jpg`);
    const hit = await readFile(cached).catch(() => undefined);
    if (hit !== undefined) return hit;
    const original = await readFile(path.join(folder, 'original')).catch(() => undefined);
    if (original === undefined) return undefined;
    const sharp = await loadSharp();
    const output = await sharp(original)
      .rotate()
      .resize(size.width, size.height, { fit: 'cover', position: 'centre' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85, mozjpeg: true })
      .toBuffer();
    await writeAtomically(cached, output);
    return output;
  }

  private folderOf(hash: string): string {
    return path.join(this.directory, hash.slice(0, 2), hash);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
}
