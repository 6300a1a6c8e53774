import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api } from '../api.ts';
import { money } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { findRoute, helpOf, homeOf, menuOf } from '../routes.tsx';
import type { User } from '../session.ts';
import { Bell } from './bell.tsx';
import { LanguageSwitcher } from './language-switcher.tsx';
import { PayoutThreshold } from './payout-threshold.tsx';

export function Layout({ user, children }: { user: User; children: ReactNode }) {
  const { t } = useTranslation();
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
        <HelpLinks path={path} />
      </main>
    </>
  );
}

/** Help in place: the guide's page about this page, and the API reference (both served by this server). */
function HelpLinks({ path }: { path: string }) {
  const { t } = useTranslation();
  const help = helpOf(findRoute(path)?.route);
  return (
    <aside className="help-links" aria-label={t('help.label')}>
      <Trans
        i18nKey="help.text"
        values={{ doc: help.slice(1) }}
        components={{ guide: <TextLink href={help} />, api: <TextLink href="/api/docs" /> }}
      />
    </aside>
  );
}

/** A link whose words a translated sentence gives it (`<Trans components>` fills its children). */
function TextLink({ href, children }: { href: string; children?: ReactNode }) {
  return <a href={href}>{children}</a>;
}
