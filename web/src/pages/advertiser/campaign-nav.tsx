import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, noRetryOnRefusal } from '../../api.ts';
import { Missing } from '../../components/missing.tsx';
import { keepingView } from '../../components/period-picker.tsx';
import { Link } from '../../router.tsx';
import { advertiserKeys } from './advertiser-keys.ts';

const TABS = [
  { path: '', label: 'nav.tab.ads', keepsView: true },
  { path: '/traffic', label: 'nav.tab.traffic', keepsView: true },
  // Explain is about now: the period and goal of the other tabs do not apply.
  { path: '/explain', label: 'nav.tab.explain', keepsView: false },
  // Rules look at their own window of days, not at the period of the other tabs.
  { path: '/rules', label: 'nav.tab.rules', keepsView: false },
] as const;

/** A campaign as its tabs' heads need it (its title), or the API's 404 for another account's id. */
export function useCampaign(id: number) {
  return useQuery({
    queryKey: advertiserKeys.campaign.title(id),
    queryFn: () => data(api.GET('/api/advertiser/campaigns/{id}', { params: { path: { id }, query: { archived: 0 } } })),
    retry: noRetryOnRefusal,
  });
}

type Tab = (typeof TABS)[number]['path'];

/** The head of a campaign's pages: the way back to the list, its title, the page's pickers, its tabs. */
export function CampaignHead({
  id,
  title,
  current,
  children,
}: {
  id: number;
  title?: string;
  current: Tab;
  children?: ReactNode;
}) {
  const { t } = useTranslation('advertiser');
  return (
    <>
      <p className="crumbs">
        <Link href="/advertiser/campaigns">{t('nav.campaigns')}</Link> /
      </p>
      <div className="page-head">
        <h1>{title ?? t('nav.campaign')}</h1>
        {children && <div className="pickers">{children}</div>}
      </div>
      <CampaignTabs id={id} current={current} />
    </>
  );
}

/** The tabs of one campaign's pages, the current one marked. */
function CampaignTabs({ id, current }: { id: number; current: Tab }) {
  const { t } = useTranslation('advertiser');
  return (
    <nav className="subnav" aria-label={t('nav.campaign')}>
      {TABS.map((tab) => {
        const href = `/advertiser/campaigns/${id}${tab.path}`;
        return (
          <Link
            key={tab.path}
            className="tab"
            href={tab.keepsView ? keepingView(href) : href}
            aria-current={tab.path === current ? 'page' : undefined}
          >
            {t(tab.label)}
          </Link>
        );
      })}
    </nav>
  );
}

/** What a campaign page shows for an id that is not one of the advertiser's campaigns. */
export function CampaignNotFound({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  return (
    <Missing what={t('nav.campaign')} text={t('nav.notFound', { id })} back="/advertiser/campaigns" backLabel={t('nav.back')} />
  );
}
