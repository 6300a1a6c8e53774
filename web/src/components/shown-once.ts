import { useEffect, useLayoutEffect, useRef } from 'react';

/**
 * For a page that shows a secret once (a new API token, a webhook's signing secret, an
 * authenticator key and recovery codes): `forget` runs when the page is left, so coming back
 * never shows the secret again. Within the app the next page may still be loading: React then
 * hides this one with its state kept, and a quick "back" would show it again; a hidden page runs
 * its layout effects' cleanup, so that is where the secret is forgotten. A page left for another
 * document may be kept in the browser's back-forward cache: `pagehide` forgets it first.
 */
export function useForgetOnLeave(forget: () => void): void {
  const latest = useRef(forget);
  useLayoutEffect(() => {
    latest.current = forget;
  });
  useLayoutEffect(() => () => latest.current(), []);
  useEffect(() => {
    const onHide = () => latest.current();
    window.addEventListener('pagehide', onHide);
    return () => window.removeEventListener('pagehide', onHide);
  }, []);
}
