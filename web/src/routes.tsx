import { type ComponentType, use } from 'react';
import type common from './i18n/locales/en/common.json';
import { matchPath } from './router.tsx';
import type { User } from './session.ts';

/** A page's name: a key of the `common` catalogue (web/src/i18n). */
export type PageTitle = Extract<keyof typeof common, `page.${string}`>;

/** What every page is given: the signed-in account and the `:id` of its path (0 when it has none). */
export interface PageProps {
  user: User;
  id: number;
}

interface RouteBase {
  /** The address, with `:id` for a number (see matchPath). */
  path: string;
  /** The document title (before "· Nativa"), as its key in the `common` catalogue. */
  title: PageTitle;
  /** Its link in the main menu, in the order of this table (a `common` key as well). */
  menu?: PageTitle;
}

/** A page's component, loaded the first time it shows, or earlier by `preload()`. */
export type LazyPage<Props> = ComponentType<Props> & { preload: () => void };

/** A page of a signed-in account: of one kind of account, or of every one (`account`). */
export interface AccountRoute extends RouteBase {
  access: User['type'] | 'account';
  page: LazyPage<PageProps>;
}

/** A page anybody opens, signed in or not, shown without the menu (signing in, setting a password). */
export interface PublicRoute extends RouteBase {
  access: 'public';
  page: LazyPage<object>;
}

export type Route = AccountRoute | PublicRoute;

/**
 * A page loaded the first time it is opened (or preloaded): the pages of an area are one chunk
 * (vite.config.ts), so the first page loads the app and its role's pages, never another role's.
 */
function page<Module extends Record<Name, ComponentType<PageProps>>, Name extends string>(
  load: () => Promise<Module>,
  name: Name,
): LazyPage<PageProps> {
  return lazyPage(load, name);
}

/** A public page, loaded as `page` is; it is given nothing, as nobody may be signed in. */
function publicPage<Module extends Record<Name, ComponentType>, Name extends string>(
  load: () => Promise<Module>,
  name: Name,
): LazyPage<object> {
  return lazyPage(load, name);
}

function lazyPage<Props extends object, Module extends Record<Name, ComponentType<Props>>, Name extends string>(
  load: () => Promise<Module>,
  name: Name,
): LazyPage<Props> {
  let loaded: ComponentType<Props> | undefined;
  let loading: Promise<ComponentType<Props>> | undefined;
  const start = () => {
    loading ??= load().then((module) => {
      loaded = module[name];
      return loaded;
    });
    return loading;
  };
  // Not React.lazy: it suspends on every first render, even of a module already loaded, and React
  // then holds the page back behind its fallback for up to 300 ms. A loaded page renders at once;
  // one still loading suspends (`use`) until it is there.
  function Page(props: Props) {
    const Component = loaded ?? use(start());
    return <Component {...props} />;
  }
  return Object.assign(Page, { preload: () => void start() });
}

/** Where an account that is not signed in is sent from every page that is not public. */
export const SIGN_IN = '/sign-in';
export const SIGN_IN_PAGE = publicPage(() => import('./pages/account/sign-in.tsx'), 'SignInPage');

/** The sign-in page's address that leads, once signed in, on to `target` (a page of this app). */
export function signInFor(target: string): string {
  return target === '/' || target === SIGN_IN ? SIGN_IN : `${SIGN_IN}?next=${encodeURIComponent(target)}`;
}

/**
 * Where `?next=` leads after signing in: only a page of this app (a path of this origin that a
 * route has), never another site (`//evil.example`, `https://…`), so a link cannot send someone away.
 */
export function nextAfterSignIn(next: string | null): string | null {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  const target = new URL(next, location.origin);
  if (target.origin !== location.origin || findRoute(target.pathname) === null || target.pathname === SIGN_IN) return null;
  return `${target.pathname}${target.search}`;
}

/**
 * What an account that must have two-factor sign-in (`REQUIRE_2FA_FOR`) and has not sees at every
 * address, until it has: no route of its own, the app shows it in place of any page.
 */
export const ENROLMENT_PAGE = page(() => import('./pages/account/enrolment-required.tsx'), 'EnrolmentRequiredPage');

const webhooks = page(() => import('./pages/shared/webhooks/webhooks-page.tsx'), 'WebhooksPage');

/** Every page of the app: the one place that says which address shows what, to whom, under what title. */
// biome-ignore format: one route a line reads as the table it is.
export const ROUTES: Route[] = [
  { path: SIGN_IN, title: 'page.signIn', access: 'public', page: SIGN_IN_PAGE },
  { path: '/password', title: 'page.password', access: 'public', page: publicPage(() => import('./pages/account/password.tsx'), 'PasswordPage') },
  { path: '/account', title: 'page.yourAccount', access: 'account', page: page(() => import('./pages/account/account.tsx'), 'AccountPage') },
  { path: '/notifications', title: 'page.notifications', access: 'account', page: page(() => import('./pages/account/notifications.tsx'), 'NotificationsPage') },

  { path: '/advertiser', title: 'page.overview', access: 'advertiser', menu: 'page.overview', page: page(() => import('./pages/advertiser/overview.tsx'), 'OverviewPage') },
  { path: '/advertiser/campaigns', title: 'page.campaigns', access: 'advertiser', menu: 'page.campaigns', page: page(() => import('./pages/advertiser/campaigns.tsx'), 'CampaignsPage') },
  { path: '/advertiser/campaigns/:id', title: 'page.campaign', access: 'advertiser', page: page(() => import('./pages/advertiser/campaign.tsx'), 'CampaignPage') },
  { path: '/advertiser/campaigns/:id/traffic', title: 'page.sitesAndDevices', access: 'advertiser', page: page(() => import('./pages/advertiser/campaign-traffic.tsx'), 'CampaignTrafficPage') },
  { path: '/advertiser/campaigns/:id/explain', title: 'page.whyAdsShow', access: 'advertiser', page: page(() => import('./pages/advertiser/campaign-explain.tsx'), 'CampaignExplainPage') },
  { path: '/advertiser/campaigns/:id/rules', title: 'page.rules', access: 'advertiser', page: page(() => import('./pages/advertiser/campaign-rules.tsx'), 'CampaignRulesPage') },
  { path: '/advertiser/clients', title: 'page.clients', access: 'advertiser', menu: 'page.clients', page: page(() => import('./pages/advertiser/clients.tsx'), 'ClientsPage') },
  { path: '/advertiser/clients/:id', title: 'page.clients', access: 'advertiser', page: page(() => import('./pages/advertiser/clients.tsx'), 'ClientPage') },
  { path: '/advertiser/billing', title: 'page.billing', access: 'advertiser', menu: 'page.billing', page: page(() => import('./pages/advertiser/billing.tsx'), 'BillingPage') },
  { path: '/advertiser/conversions', title: 'page.conversions', access: 'advertiser', menu: 'page.conversions', page: page(() => import('./pages/advertiser/conversions.tsx'), 'ConversionsPage') },
  { path: '/advertiser/webhooks', title: 'page.webhooks', access: 'advertiser', menu: 'page.webhooks', page: webhooks },

  { path: '/publisher', title: 'page.overview', access: 'publisher', menu: 'page.overview', page: page(() => import('./pages/publisher/overview.tsx'), 'PublisherOverviewPage') },
  { path: '/publisher/sites', title: 'page.sites', access: 'publisher', menu: 'page.sites', page: page(() => import('./pages/publisher/sites.tsx'), 'SitesPage') },
  { path: '/publisher/sites/:id', title: 'page.site', access: 'publisher', page: page(() => import('./pages/publisher/site.tsx'), 'SitePage') },
  { path: '/publisher/statistics', title: 'page.statistics', access: 'publisher', menu: 'page.statistics', page: page(() => import('./pages/publisher/statistics.tsx'), 'PublisherStatisticsPage') },
  { path: '/publisher/payouts', title: 'page.payouts', access: 'publisher', menu: 'page.payouts', page: page(() => import('./pages/publisher/payouts.tsx'), 'PayoutsPage') },
  { path: '/publisher/webhooks', title: 'page.webhooks', access: 'publisher', menu: 'page.webhooks', page: webhooks },

  { path: '/operator', title: 'page.moderation', access: 'operator', menu: 'page.moderation', page: page(() => import('./pages/operator/moderation.tsx'), 'ModerationPage') },
  { path: '/operator/overview', title: 'page.overview', access: 'operator', menu: 'page.overview', page: page(() => import('./pages/operator/overview.tsx'), 'NetworkOverviewPage') },
  { path: '/operator/accounts', title: 'page.accounts', access: 'operator', menu: 'page.accounts', page: page(() => import('./pages/operator/accounts.tsx'), 'AccountsPage') },
  { path: '/operator/accounts/:id', title: 'page.accounts', access: 'operator', page: page(() => import('./pages/operator/account.tsx'), 'AccountPage') },
  { path: '/operator/payouts', title: 'page.payouts', access: 'operator', menu: 'page.payouts', page: page(() => import('./pages/operator/payouts.tsx'), 'PayoutsPage') },
  { path: '/operator/invalid-traffic', title: 'page.invalidTraffic', access: 'operator', menu: 'page.invalidTraffic', page: page(() => import('./pages/operator/invalid-traffic.tsx'), 'InvalidTrafficPage') },
  { path: '/operator/outbox', title: 'page.outbox', access: 'operator', menu: 'page.outbox', page: page(() => import('./pages/operator/outbox.tsx'), 'OutboxPage') },
  { path: '/operator/outbox/:id', title: 'page.outbox', access: 'operator', page: page(() => import('./pages/operator/outbox.tsx'), 'OutboxMessagePage') },
  { path: '/operator/webhooks', title: 'page.webhooks', access: 'operator', menu: 'page.webhooks', page: webhooks },

  { path: '/tokens', title: 'page.apiTokens', access: 'account', menu: 'page.apiTokens', page: page(() => import('./pages/account/tokens.tsx'), 'TokensPage') },
];

/**
 * The help shown under each page (web/src/i18n/locales/<language>/help.json): what the page is for,
 * what its fields mean and what happens after saving, written for the page's user in both
 * languages. Keyed by route path; the developers' docs (docs/) stay for developers.
 */
export const HELP_TOPICS = {
  '/account': 'account',
  '/notifications': 'notifications',
  '/tokens': 'tokens',
  '/advertiser': 'advertiserOverview',
  '/advertiser/campaigns': 'campaigns',
  '/advertiser/campaigns/:id': 'campaign',
  '/advertiser/campaigns/:id/traffic': 'campaignTraffic',
  '/advertiser/campaigns/:id/explain': 'campaignExplain',
  '/advertiser/campaigns/:id/rules': 'campaignRules',
  '/advertiser/clients': 'clients',
  '/advertiser/clients/:id': 'clients',
  '/advertiser/billing': 'billing',
  '/advertiser/conversions': 'conversions',
  '/advertiser/webhooks': 'webhooks',
  '/publisher': 'publisherOverview',
  '/publisher/sites': 'sites',
  '/publisher/sites/:id': 'site',
  '/publisher/statistics': 'publisherStatistics',
  '/publisher/payouts': 'publisherPayouts',
  '/publisher/webhooks': 'webhooks',
  '/operator': 'moderation',
  '/operator/overview': 'networkOverview',
  '/operator/accounts': 'accounts',
  '/operator/accounts/:id': 'operatorAccount',
  '/operator/payouts': 'operatorPayouts',
  '/operator/invalid-traffic': 'invalidTraffic',
  '/operator/outbox': 'outbox',
  '/operator/outbox/:id': 'outbox',
  '/operator/webhooks': 'webhooks',
} as const;

export type HelpTopic = (typeof HELP_TOPICS)[keyof typeof HELP_TOPICS];

/** The help topic of a route's page; undefined for a page without one (public pages). */
export function helpOf(route: Route | undefined): HelpTopic | undefined {
  return route === undefined ? undefined : HELP_TOPICS[route.path as keyof typeof HELP_TOPICS];
}

export const NOT_FOUND = publicPage(() => import('./pages/shared/not-found.tsx'), 'NotFoundPage');

/** The route of a path and the `:id` in it; null for an address the app does not have. */
export function findRoute(path: string): { route: Route; id: number } | null {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params) return { route, id: Number(params.id ?? 0) };
  }
  return null;
}

/** Whether an account may open a page of signed-in accounts. */
export function mayOpen(route: AccountRoute, user: User): boolean {
  return route.access === 'account' || route.access === user.type;
}

/** The main menu of an account kind: its pages' links, then those of every account. */
export function menuOf(user: User): { href: string; label: PageTitle }[] {
  const links = (access: Route['access']) =>
    ROUTES.filter((route) => route.access === access && route.menu !== undefined).map((route) => ({
      href: route.path,
      label: route.menu ?? route.title,
    }));
  return [...links(user.type), ...links('account')];
}

/** The first page of an account kind, where signing in leads: the first link of its menu. */
export function homeOf(user: User): string {
  return menuOf(user)[0]?.href ?? '/tokens';
}
