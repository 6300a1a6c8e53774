import { DomainError } from './errors.ts';

export type ResponseFormat = 'json' | 'xml';

const TYPES: Record<string, ResponseFormat> = {
  'application/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  '*/*': 'json',
  'application/*': 'json',
};

/** The only API version; `1.0` is the same version written differently. */
const SUPPORTED_VERSIONS = new Set(['1', '1.0']);

const cache = new Map<string, ResponseFormat | DomainError>();
const CACHE_LIMIT = 256;

/**
 * Picks the response format from `Accept`, honouring q-values and the `version` parameter.
 * Throws 415 when nothing acceptable is offered or another version is asked for.
 * Header values repeat a lot (clients send the same one every time), so results are cached.
 */
export function negotiateFormat(accept: string | undefined): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  let result = cache.get(accept);
  if (result === undefined) {
    result = parseAccept(accept);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(accept, result);
  }
  if (result instanceof DomainError) throw result;
  return result;
}

function parseAccept(accept: string): ResponseFormat | DomainError {
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim());
      let quality = 1;
      let version: string | undefined;
      for (const parameter of parameters) {
        const [key = '', raw = ''] = parameter.split('=').map((piece) => piece.trim());
        const value = raw.replace(/^"|"$/g, '');
        if (key.toLowerCase() === 'q') quality = Number(value);
        if (key.toLowerCase() === 'version') version = value;
      }
      return { type: type.toLowerCase(), quality: Number.isNaN(quality) ? 0 : quality, version, index };
    })
    .filter((range) => range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const range of ranges) {
    const format = TYPES[range.type];
    if (format === undefined) continue;
    if (range.version !== undefined && !SUPPORTED_VERSIONS.has(range.version)) {
      return new DomainError('unsupported_media_type', `Unsupported API version: ${range.version}. The only version is 1.`);
    }
    return format;
  }
  return new DomainError(
    'unsupported_media_type',
    'None of the requested response formats is supported. Use application/json or application/xml.',
  );
}
