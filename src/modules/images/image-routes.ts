import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../http/schemas.ts';
import { isServableSize } from './image-store.ts';

const ImageParams = Type.Object({
  hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Content hash (SHA-256) of the stored image.' }),
  size: Type.String({ pattern: '^\\d{1,4}x\\d{1,4}\\.jpg$', description: 'Size and extension, e.g. `492x328.jpg`.' }),
});

/**
 * Serves ad images publicly (teasers are shown to anonymous visitors) in the allowed sizes only.
 * A URL names its content, so responses may be cached forever.
 */
export function registerImageRoutes(app: App, context: AppContext): void {
  const { images } = context;
  app.get(
    '/api/img/:hash/:size',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Images'],
        operationId: 'getImage',
        summary: 'An ad image in one of its allowed sizes, as JPEG.',
        security: [],
        params: ImageParams,
        response: { 200: mediaAnswer('The JPEG image.', 'image/jpeg'), 304: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { hash, size } = request.params;
      const dimensions = size.slice(0, -'.jpg'.length);
      if (!isServableSize(dimensions)) throw notFound('Image size');
      const [width, height] = dimensions.split('x').map(Number);
      const bytes = await images.resized(hash, { width: width ?? 0, height: height ?? 0 });
      if (bytes === undefined) throw notFound('Image');
      // The hook that computes ETags only sees text bodies; an image's content hash and size name it.
      const etag = `"${hash.slice(0, 32)}-${dimensions}"`;
      reply.header('ETag', etag);
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
        reply.code(304);
        return reply.send(null);
      }
      reply.type('image/jpeg');
      return reply.send(bytes);
    },
  );
}
