import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, StrictMode, Suspense, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { api, data, problem } from './api.ts';
import { Notice } from './components/controls.tsx';
import { Layout } from './components/layout.tsx';
import { setPlatform } from './format.ts';
import { useTwoFactor } from './pages/account/two-factor-status.ts';
import { AccountPage } from './pages/account.tsx';
import { CampaignExplainPage } from './pages/advertiser/campaign-explain.tsx';
import { CampaignTrafficPage } from './pages/advertiser/campaign-traffic.tsx';
import { ClientPage, ClientsPage } from './pages/advertiser/clients.tsx';
import { ConversionsPage } from './pages/advertiser/conversions.tsx';
import { CampaignPage } from './pages/campaign.tsx';
import { CampaignsPage } from './pages/campaigns.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PasswordPage } from './pages/password.tsx';
import { PublisherOverviewPage } from './pages/publisher/overview.tsx';
import { PayoutsPage } from './pages/publisher/payouts.tsx';
import { SitePage } from './pages/publisher/site.tsx';
import { SitesPage } from './pages/publisher/sites.tsx';
import { PublisherStatisticsPage } from './pages/publisher/statistics.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { navigate, useLocation } from './router.tsx';
import { homeOf, useMe } from './session.ts';
import './styles.css';

// The operator's pages are a chunk of their own, fetched only when an operator opens one.
const OperatorPages = lazy(() =>
  import('./pages/operator/operator-pages.tsx').then((module) => ({ default: module.OperatorPages })),
);
// So are the tools most visits never open: a campaign's rules and the webhook endpoints.
const CampaignRulesPage = lazy(() =>
  import('./pages/advertiser/campaign-rules.tsx').then((module) => ({ default: module.CampaignRulesPage })),
);
const EnrolmentRequiredPage = lazy(() =>
  import('./pages/account/enrolment-required.tsx').then((module) => ({ default: module.EnrolmentRequiredPage })),
);
const WebhooksPage = lazy(() =>
  import('./pages/webhooks/webhooks-page.tsx').then((module) => ({ default: module.WebhooksPage })),
);

const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: true, retry: 1 } } });

function App() {
  const { path } = useLocation();
  const platform = useQuery({
    queryKey: ['platform'],
    queryFn: async () => {
      const value = await data(api.GET('/api/platform'));
      setPlatform(value);
      return value;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
  const me = useMe();
  // An account that must have two-factor sign-in and has not sees its enrolment before anything else.
  const twoFactor = useTwoFactor(Boolean(me.data));
  const publicPage = path === '/sign-in' || path === '/password';
  const user = me.data;

  useEffect(() => {
    if (me.isSuccess && user === null && !publicPage) navigate('/sign-in', { replace: true });
    if (user && (path === '/' || path === '/sign-in')) navigate(homeOf(user.type), { replace: true });
  }, [me.isSuccess, user, path, publicPage]);

  useEffect(() => {
    document.title = `${titleOf(path)} · Nativa`;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);

  if (me.error || platform.error) {
    return (
      <main className="auth">
        <Notice kind="error">{problem(me.error ?? platform.error)}</Notice>
      </main>
    );
  }
  if (!platform.data || me.isPending) return <p className="loading">Loading…</p>;
  if (path === '/password') return <PasswordPage />;
  if (!user) return <SignInPage />;
  if (twoFactor.data?.required && !twoFactor.data.enabled) {
    return <Layout user={user}>{lazily(<EnrolmentRequiredPage />)}</Layout>;
  }
  return <Layout user={user}>{page(path, user)}</Layout>;
}

function page(path: string, user: NonNullable<ReturnType<typeof useMe>['data']>) {
  if (path === '/tokens') return <TokensPage />;
  if (path === '/account') return <AccountPage user={user} />;
  if (user.type === 'operator' && (path === '/operator' || path.startsWith('/operator/'))) {
    return lazily(<OperatorPages path={path} />);
  }
  if (user.type === 'advertiser') {
    if (path === '/advertiser') return <OverviewPage user={user} />;
    if (path === '/advertiser/campaigns') return <CampaignsPage />;
    const campaign = /^\/advertiser\/campaigns\/(\d+)$/.exec(path);
    if (campaign) return <CampaignPage id={Number(campaign[1])} />;
    const traffic = /^\/advertiser\/campaigns\/(\d+)\/traffic$/.exec(path);
    if (traffic) return <CampaignTrafficPage id={Number(traffic[1])} />;
    const explain = /^\/advertiser\/campaigns\/(\d+)\/explain$/.exec(path);
    if (explain) return <CampaignExplainPage id={Number(explain[1])} />;
    const rules = /^\/advertiser\/campaigns\/(\d+)\/rules$/.exec(path);
    if (rules) return lazily(<CampaignRulesPage id={Number(rules[1])} />);
    if (path === '/advertiser/webhooks') return lazily(<WebhooksPage kind="advertiser" />);
    if (path === '/advertiser/clients') return <ClientsPage />;
    const client = /^\/advertiser\/clients\/(\d+)$/.exec(path);
    if (client) return <ClientPage id={Number(client[1])} />;
    if (path === '/advertiser/conversions') return <ConversionsPage />;
  } else if (user.type === 'publisher') {
    if (path === '/publisher') return <PublisherOverviewPage user={user} />;
    if (path === '/publisher/sites') return <SitesPage />;
    const site = /^\/publisher\/sites\/(\d+)$/.exec(path);
    if (site) return <SitePage id={Number(site[1])} />;
    if (path === '/publisher/statistics') return <PublisherStatisticsPage />;
    if (path === '/publisher/payouts') return <PayoutsPage user={user} />;
    if (path === '/publisher/webhooks') return lazily(<WebhooksPage kind="publisher" />);
  } else if (path === '/' || path.startsWith('/advertiser') || path.startsWith('/publisher')) {
    return (
      <>
        <h1>Welcome</h1>
        <p>The {user.type} pages of the web account are not built yet; the API and your API tokens are available.</p>
      </>
    );
  }
  return (
    <>
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
    </>
  );
}

/** A page of a chunk of its own, with a placeholder while the chunk loads. */
function lazily(page: ReactNode) {
  return <Suspense fallback={<p className="loading">Loading…</p>}>{page}</Suspense>;
}

function titleOf(path: string): string {
  if (path === '/sign-in') return 'Sign in';
  if (path === '/password') return 'Password';
  if (path === '/tokens') return 'API tokens';
  if (path === '/account') return 'Your account';
  if (path.endsWith('/traffic')) return 'Sites and devices';
  if (path.endsWith('/explain')) return 'Why ads show';
  if (path.endsWith('/rules')) return 'Rules';
  if (path.endsWith('/webhooks')) return 'Webhooks';
  if (path.startsWith('/advertiser/clients')) return 'Clients';
  if (path === '/advertiser/conversions') return 'Conversions';
  if (path === '/advertiser/campaigns') return 'Campaigns';
  if (path.startsWith('/advertiser/campaigns/')) return 'Campaign';
  if (path === '/publisher/sites') return 'Sites';
  if (path.startsWith('/publisher/sites/')) return 'Site';
  if (path === '/publisher/statistics') return 'Statistics';
  if (path === '/publisher/payouts') return 'Payouts';
  if (path === '/operator') return 'Moderation';
  if (path.startsWith('/operator/accounts')) return 'Accounts';
  if (path.startsWith('/operator/payouts')) return 'Payouts';
  if (path.startsWith('/operator/outbox')) return 'Outbox';
  return 'Overview';
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
