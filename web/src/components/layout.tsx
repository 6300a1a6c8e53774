import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api.ts';
import { money } from '../format.ts';
import { appKeys } from '../query-keys.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { homeOf, menuOf } from '../routes.tsx';
import type { User } from '../session.ts';
import { Bell } from './bell.tsx';
import { LanguageSwitcher } from './language-switcher.tsx';
import { PageHelp } from './page-help.tsx';
import { PayoutThreshold } from './payout-threshold.tsx';

export function Layout({ user, children }: { user: User; children: ReactNode }) {
  const { t } = useTranslation();
  const { path } = useLocation();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => api.DELETE('/api/session'),
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(appKeys.me(), null);
      navigate('/sign-in', { replace: true });
    },
  });
  const links = menuOf(user);
  const home = homeOf(user);
  const current = (href: string) => (href === home ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <>
      <a className="skip" href="#main">
        {t('layout.skipToContent')}
      </a>
      <header className="top">
        <Link href={links[0]?.href ?? '/'} className="brand">
          <span className="logo" aria-hidden="true">
            N
          </span>
          Nativa
        </Link>
        <nav aria-label={t('layout.mainMenu')}>
          {links.map((link) => (
            <Link key={link.href} href={link.href} aria-current={current(link.href) ? 'page' : undefined}>
              {t(link.label)}
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
              title={t('layout.accountLinkTitle', { name: user.name || user.username })}
            >
              {user.name || user.username}
            </Link>
            {user.type !== 'operator' && (
              <span className="balance" title={t('layout.balance')}>
                {money(user.balance)}
              </span>
            )}
            {user.type === 'publisher' && <PayoutThreshold balance={user.balance} />}
          </span>
          <LanguageSwitcher signedIn />
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            {t('layout.signOut')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
        <Suspense fallback={null}>
          <PageHelp path={path} />
        </Suspense>
      </main>
    </>
  );
}
