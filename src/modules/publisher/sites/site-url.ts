/**
 * The canonical form of a site address, so that `HTTPS://News.Example.com/` and
 * `https://news.example.com` are recognised as one site: http or https only, host lower-cased,
 * default port, credentials and fragment dropped, no trailing slash. Returns undefined for
 * anything that is not an absolute http(s) address with a host.
 */
export function normalizeSiteUrl(input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}${url.search}`;
}
