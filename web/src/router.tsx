import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from 'react';

/** A small history-API router: the app has few pages, and this costs no bundle. */
const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const update = () => setVersion((version) => version + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Changes query parameters of the current page without a new history entry (filters, periods). */
export function setQuery(values: Record<string, string | undefined>): void {
  const query = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === '') query.delete(name);
    else query.set(name, value);
  }
  const search = query.toString();
  navigate(`${location.pathname}${search ? `?${search}` : ''}`, { replace: true });
}

/**
 * The parameters of a path that matches a route's pattern (`/advertiser/campaigns/:id` matches
 * `/advertiser/campaigns/12` with `{ id: '12' }`), or null. A parameter is one segment of digits:
 * every id of the API is a number, and anything else is a page that does not exist.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const source = pattern.replace(/:([a-z]+)/gi, (_, name: string) => {
    names.push(name);
    return '(\\d+)';
  });
  const match = new RegExp(`^${source}$`).exec(path);
  if (!match) return null;
  return Object.fromEntries(names.map((name, index) => [name, match[index + 1] ?? '']));
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
