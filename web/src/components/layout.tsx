import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../api.ts';
import { money } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { findRoute, helpOf, homeOf, menuOf } from '../routes.tsx';
import type { User } from '../session.ts';
import { Bell } from './bell.tsx';
import { PayoutThreshold } from './payout-threshold.tsx';

export function Layout({ user, children }: { user: User; children: ReactNode }) {
  const { path } = useLocation();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => api.DELETE('/api/session'),
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(['me'], null);
      navigate('/sign-in', { replace: true });
    },
  });
  const links = menuOf(user);
  const home = homeOf(user);
  const current = (href: string) => (href === home ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href={links[0]?.href ?? '/'} className="brand">
          <span className="logo" aria-hidden="true">
            N
          </span>
          Nativa
        </Link>
        <nav aria-label="Main">
          {links.map((link) => (
            <Link key={link.href} href={link.href} aria-current={current(link.href) ? 'page' : undefined}>
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="account">
          <Bell current={path === '/notifications'} />
          <span className="who">
            <Link
              href="/account"
              className="account-link"
              aria-current={path === '/account' ? 'page' : undefined}
              title={`${user.name || user.username}: your account and password`}
            >
              {user.name || user.username}
            </Link>
            {user.type !== 'operator' && (
              <span className="balance" title="Balance">
                {money(user.balance)}
              </span>
            )}
            {user.type === 'publisher' && <PayoutThreshold balance={user.balance} />}
          </span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
        <HelpLinks path={path} />
      </main>
    </>
  );
}

/** Help in place: the guide's page about this page, and the API reference (both served by this server). */
function HelpLinks({ path }: { path: string }) {
  const help = helpOf(findRoute(path)?.route);
  return (
    <aside className="help-links" aria-label="Help">
      Help: <a href={help}>how this page works ({help.slice(1)})</a> · <a href="/api/docs">API reference</a>
    </aside>
  );
}
