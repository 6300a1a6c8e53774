import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, data, noRetryOnRefusal } from '../../api.ts';
import { Missing } from '../../components/missing.tsx';
import { keepingView } from '../../components/period-picker.tsx';
import { Link } from '../../router.tsx';

const TABS = [
  { path: '', label: 'Ads and days', keepsView: true },
  { path: '/traffic', label: 'Sites and devices', keepsView: true },
  // Explain is about now: the period and goal of the other tabs do not apply.
  { path: '/explain', label: 'Why ads show', keepsView: false },
  // Rules look at their own window of days, not at the period of the other tabs.
  { path: '/rules', label: 'Rules', keepsView: false },
] as const;

/** A campaign as its tabs' heads need it (its title), or the API's 404 for another account's id. */
export function useCampaign(id: number) {
  return useQuery({
    queryKey: ['campaign', id, 'title'],
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
  return (
    <>
      <p className="crumbs">
        <Link href="/advertiser/campaigns">Campaigns</Link> /
      </p>
      <div className="page-head">
        <h1>{title ?? 'Campaign'}</h1>
        {children && <div className="pickers">{children}</div>}
      </div>
      <CampaignTabs id={id} current={current} />
    </>
  );
}

/** The tabs of one campaign's pages, the current one marked. */
function CampaignTabs({ id, current }: { id: number; current: Tab }) {
  return (
    <nav className="subnav" aria-label="Campaign">
      {TABS.map((tab) => {
        const href = `/advertiser/campaigns/${id}${tab.path}`;
        return (
          <Link
            key={tab.path}
            className="tab"
            href={tab.keepsView ? keepingView(href) : href}
            aria-current={tab.path === current ? 'page' : undefined}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}

/** What a campaign page shows for an id that is not one of the advertiser's campaigns. */
export function CampaignNotFound({ id }: { id: number }) {
  return (
    <Missing
      what="Campaign"
      text={`There is no campaign ${id} in your account.`}
      back="/advertiser/campaigns"
      backLabel="Back to campaigns"
    />
  );
}
