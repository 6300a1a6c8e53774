/**
 * What other modules use of images: the image schema of an ad and the store of ad images (its
 * validation of data URIs, sharp for the demo data).
 */
export { ImageSchema, toImage } from './image-schema.ts';
export { ImageStore } from './image-store.ts';
export { readImageDataUri } from './image-validation.ts';
export { loadSharp } from './sharp.ts';
