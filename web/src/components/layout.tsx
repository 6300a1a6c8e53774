import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../api.ts';
import { money } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { User } from '../session.ts';

const ADVERTISER_LINKS = [
  { href: '/advertiser', label: 'Overview' },
  { href: '/advertiser/campaigns', label: 'Campaigns' },
  { href: '/advertiser/clients', label: 'Clients' },
  { href: '/advertiser/conversions', label: 'Conversions' },
  { href: '/advertiser/webhooks', label: 'Webhooks' },
];

const PUBLISHER_LINKS = [
  { href: '/publisher', label: 'Overview' },
  { href: '/publisher/sites', label: 'Sites' },
  { href: '/publisher/statistics', label: 'Statistics' },
  { href: '/publisher/payouts', label: 'Payouts' },
  { href: '/publisher/webhooks', label: 'Webhooks' },
];

const OPERATOR_LINKS = [
  { href: '/operator', label: 'Moderation' },
  { href: '/operator/accounts', label: 'Accounts' },
  { href: '/operator/payouts', label: 'Payouts' },
  { href: '/operator/outbox', label: 'Outbox' },
  { href: '/operator/webhooks', label: 'Webhooks' },
];

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
  const roleLinks =
    user.type === 'advertiser'
      ? ADVERTISER_LINKS
      : user.type === 'publisher'
        ? PUBLISHER_LINKS
        : user.type === 'operator'
          ? OPERATOR_LINKS
          : [];
  const links = [...roleLinks, { href: '/tokens', label: 'API tokens' }];
  const home = roleLinks[0]?.href;
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
          <span className="who">
            <Link
              href="/account"
              className="account-link"
              aria-current={path === '/account' ? 'page' : undefined}
              title="Your account and password"
            >
              {user.name || user.username}
            </Link>
            {user.type !== 'operator' && (
              <span className="balance" title="Balance">
                {money(user.balance)}
              </span>
            )}
          </span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
