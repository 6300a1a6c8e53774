import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips) is loaded on the first image handled, not at start: it costs ~8 MB of resident
 * memory, and most processes never decode or resize a picture (docs/performance.md, "Idle memory").
 */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
