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

/** The tabs of one campaign's pages, the current one marked. */
export function CampaignTabs({ id, current }: { id: number; current: (typeof TABS)[number]['path'] }) {
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
    <>
      <h1>Campaign not found</h1>
      <p>
        There is no campaign {id} in your account. <Link href="/advertiser/campaigns">Back to campaigns</Link>
      </p>
    </>
  );
}
