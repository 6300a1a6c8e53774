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
const NO_TYPES: readonly string[] = [];
const CACHE_LIMIT = 256;

/**
 * Picks the response format from `Accept`, honouring q-values and the `version` parameter.
 * `produces` are the other media types the route answers (a CSV export, an image, a script: what
 * its response schema declares, lower case, without parameters): asking for one of them, by name
 * or by a wildcard such as `image/*`, is acceptable too, and the route's errors are then JSON.
 * Throws 415 when nothing acceptable is offered or another version is asked for.
 * Header values repeat a lot (clients send the same one every time), so results are cached.
 */
export function negotiateFormat(accept: string | undefined, produces: readonly string[] = NO_TYPES): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  const key = produces.length === 0 ? accept : `${produces.join(',')}\n${accept}`;
  let result = cache.get(key);
  if (result === undefined) {
    result = parseAccept(accept, produces);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, result);
  }
  if (result instanceof DomainError) throw result;
  return result;
}

/** Whether a range of `Accept` (`text/csv`, `text/*`) names one of the types a route produces. */
function namesOneOf(range: string, produces: readonly string[]): boolean {
  if (range.endsWith('/*')) return produces.some((type) => type.startsWith(range.slice(0, -1)));
  return produces.includes(range);
}

function parseAccept(accept: string, produces: readonly string[]): ResponseFormat | DomainError {
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
    if (format === undefined) {
      // One of the route's own types; its parameters are that type's (Prometheus asks for
      // `text/plain; version=0.0.4`), not the API's version.
      if (namesOneOf(range.type, produces)) return 'json';
      continue;
    }
    if (range.version !== undefined && !SUPPORTED_VERSIONS.has(range.version)) {
      return new DomainError('unsupported_media_type', `Unsupported API version: ${range.version}. The only version is 1.`);
    }
    return format;
  }
  const offered = ['application/json', 'application/xml', ...produces].join(', ');
  return new DomainError(
    'unsupported_media_type',
    `None of the requested response formats is supported. Use one of: ${offered}.`,
  );
}
