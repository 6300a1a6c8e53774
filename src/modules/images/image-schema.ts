import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { absoluteUrl } from '../../http/urls.ts';
import { IMAGE_SIZES, type ImageRole } from './image-store.ts';

export const ImageSchema = Type.Object(
  {
    url: Type.String({ description: 'The image in its default size (absolute URL).' }),
    allowedSizes: Type.String({ description: 'The sizes the image is served in, `WIDTHxHEIGHT` joined by commas.' }),
    pattern: Type.String({
      description: 'URL template for a size from allowedSizes: replace `{width}` and `{height}`.',
    }),
  },
  { description: 'A stored ad image and how to fetch it.' },
);

export type Image = Static<typeof ImageSchema>;

/** The Image structure of a stored image in a role, or null when there is none. */
export function toImage(request: FastifyRequest, hash: string | null, role: ImageRole): Image | null {
  if (hash === null) return null;
  const sizes = IMAGE_SIZES[role];
  const [first] = sizes;
  const pattern = absoluteUrl(request, `/api/img/${hash}/{width}x{height}.jpg`);
  return {
    url: pattern.replace('{width}', String(first.width)).replace('{height}', String(first.height)),
    allowedSizes: sizes.map((size) => `${size.width}x${size.height}`).join(','),
    pattern,
  };
}
