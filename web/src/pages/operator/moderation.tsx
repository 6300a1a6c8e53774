import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type ListPage, listPage, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { TeaserPreview } from '../../components/teaser-preview.tsx';
import { count, fineMoney, moment } from '../../format.ts';
import { Link, useLocation } from '../../router.tsx';
import { ModerationReasons, RejectForm } from './moderation-reasons.tsx';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';
import { SiteAdsTxt } from './site-ads-txt.tsx';

const QUEUES = ['campaigns', 'ads', 'sites'] as const;
type Queue = (typeof QUEUES)[number];
const QUEUE_NAMES = {
  campaigns: 'moderation.queue.campaigns',
  ads: 'moderation.queue.ads',
  sites: 'moderation.queue.sites',
} as const;
const QUEUE_WAITING = {
  campaigns: 'moderation.waiting.campaigns',
  ads: 'moderation.waiting.ads',
  sites: 'moderation.waiting.sites',
} as const;
const QUEUE_EMPTY = {
  campaigns: 'moderation.empty.campaigns',
  ads: 'moderation.empty.ads',
  sites: 'moderation.empty.sites',
} as const;
/** How an item of a queue is named to a screen reader: "campaign Summer sale". */
const ITEM_LABEL = {
  campaigns: 'moderation.item.campaign',
  ads: 'moderation.item.ad',
  sites: 'moderation.item.site',
} as const;
/** How often an open queue looks for new arrivals. */
const REFRESH_MS = 20_000;
const PER_PAGE = 50;

const waiting = { status: 0, 'per-page': PER_PAGE } as const;
const fetchCampaigns = () => listPage(api.GET('/api/admin/campaigns', { params: { query: waiting } }));
const fetchAds = () => listPage(api.GET('/api/admin/offers', { params: { query: waiting } }));
const fetchSites = () => listPage(api.GET('/api/admin/sites', { params: { query: waiting } }));

type Campaign = Awaited<ReturnType<typeof fetchCampaigns>>['items'][number];
type Ad = Awaited<ReturnType<typeof fetchAds>>['items'][number];
type Site = Awaited<ReturnType<typeof fetchSites>>['items'][number];

/** The decision codes: campaigns and ads 1 approved, 2 rejected; sites 1 active, 2 banned. */
const APPROVE = 1;
const REJECT = 2;

function decide(queue: Queue, id: number, status: number, reason?: string) {
  const body = reason === undefined ? { status } : { status, reason };
  const call =
    queue === 'campaigns'
      ? api.PUT('/api/admin/campaigns/{id}', { params: { path: { id } }, body })
      : queue === 'ads'
        ? api.PUT('/api/admin/offers/{id}', { params: { path: { id } }, body })
        : api.PUT('/api/admin/sites/{id}', { params: { path: { id } }, body });
  return call;
}

export function ModerationPage() {
  const { t } = useTranslation('operator');
  const { query } = useLocation();
  const requested = query.get('queue');
  const editingReasons = requested === 'reasons';
  const current: Queue = QUEUES.find((queue) => queue === requested) ?? 'campaigns';
  const options = { refetchInterval: REFRESH_MS };
  const campaigns = useQuery({ queryKey: operatorKeys.moderation.queue('campaigns'), queryFn: fetchCampaigns, ...options });
  const ads = useQuery({ queryKey: operatorKeys.moderation.queue('ads'), queryFn: fetchAds, ...options });
  const sites = useQuery({ queryKey: operatorKeys.moderation.queue('sites'), queryFn: fetchSites, ...options });
  const totals: Record<Queue, number | undefined> = {
    campaigns: campaigns.data?.total,
    ads: ads.data?.total,
    sites: sites.data?.total,
  };

  return (
    <>
      <div className="page-head">
        <h1>{t('moderation.title')}</h1>
      </div>
      <p className="lead">
        <Trans t={t} i18nKey="moderation.lead" components={{ kbd: <kbd /> }} />
      </p>
      <nav className="tabs" aria-label={t('moderation.queues')}>
        {QUEUES.map((queue) => (
          <Link key={queue} href={`/operator?queue=${queue}`} aria-current={queue === current ? 'page' : undefined}>
            {t(QUEUE_NAMES[queue])}
            <span className="count">{totals[queue] ?? '…'}</span>
          </Link>
        ))}
        <Link href="/operator?queue=reasons" aria-current={editingReasons ? 'page' : undefined}>
          {t('moderation.reasonsTab')}
        </Link>
      </nav>
      {editingReasons && <ModerationReasons />}
      {!editingReasons && current === 'campaigns' && (
        <QueueList queue="campaigns" result={campaigns} render={(item: Campaign) => <CampaignItem item={item} />} />
      )}
      {!editingReasons && current === 'ads' && (
        <QueueList queue="ads" result={ads} render={(item: Ad) => <AdItem item={item} />} />
      )}
      {!editingReasons && current === 'sites' && (
        <QueueList queue="sites" result={sites} render={(item: Site) => <SiteItem item={item} />} />
      )}
    </>
  );
}

interface Moderated {
  id: number;
  /** The reason of its last rejection, when it was rejected before and sent back. */
  reason?: string;
  /** Its latest rejection (a site's ban) from the audit trail: when, and the reason given then. */
  lastRejection?: { reason: string | null; date: string };
}

function titleOf(item: Moderated): string {
  if ('title' in item && typeof item.title === 'string') return item.title;
  if ('url' in item && typeof item.url === 'string') return item.url;
  return `#${item.id}`;
}

function QueueList<T extends Moderated>({
  queue,
  result,
  render,
}: {
  queue: Queue;
  result: { data?: ListPage<T>; error: unknown; isPending: boolean };
  render: (item: T) => ReactNode;
}) {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const list = useRef<HTMLUListElement>(null);
  /** Where the focus goes once the decided item has left the list. */
  const focusNext = useRef<{ id: number; index: number } | null>(null);
  const [last, setLast] = useState<string | null>(null);
  /** The item whose rejection is being written: a rejection always says why. */
  const [rejecting, setRejecting] = useState<number | null>(null);
  const key = operatorKeys.moderation.queue(queue);
  const decision = useMutation({
    mutationFn: async ({ item, status, reason }: { item: T; status: number; index: number; reason?: string }) => {
      await decide(queue, item.id, status, reason);
    },
    // The item leaves the queue at once; the list is read again once the server has answered.
    onMutate: ({ item, index }) => {
      queryClient.setQueryData<ListPage<T>>(key, (page) =>
        page ? { ...page, items: page.items.filter((other) => other.id !== item.id), total: page.total - 1 } : page,
      );
      focusNext.current = { id: item.id, index };
    },
    onSuccess: (_result, { item, status }) =>
      setLast(
        t(
          status === APPROVE
            ? 'moderation.decided.approved'
            : queue === 'sites'
              ? 'moderation.decided.banned'
              : 'moderation.decided.rejected',
          { name: titleOf(item) },
        ),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const items = result.data?.items ?? [];

  // After a decision, the next item takes the focus, so a keyboard user goes on deciding.
  useEffect(() => {
    const next = focusNext.current;
    if (next === null || items.some((item) => item.id === next.id)) return;
    focusNext.current = null;
    const entries = list.current?.querySelectorAll<HTMLElement>(':scope > li > article');
    if (!entries || entries.length === 0) return;
    entries[Math.min(next.index, entries.length - 1)]?.focus();
  }, [items]);

  const onKey = (event: KeyboardEvent<HTMLElement>, item: T, index: number) => {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const move = (to: number) => {
      event.preventDefault();
      list.current?.querySelectorAll<HTMLElement>(':scope > li > article')[to]?.focus();
    };
    const key = event.key.toLowerCase();
    if (key === 'a') decision.mutate({ item, status: APPROVE, index });
    else if (key === 'r') {
      event.preventDefault();
      setRejecting(item.id);
    } else if (key === 'arrowdown' || key === 'j') move(index + 1);
    else if (key === 'arrowup' || key === 'k') move(index - 1);
  };

  return (
    <section aria-label={t(QUEUE_WAITING[queue])}>
      <div className="queue-status" aria-live="polite">
        {last && <Notice kind="ok">{last}</Notice>}
      </div>
      {(result.error || decision.error) && <Notice kind="error">{problem(result.error ?? decision.error)}</Notice>}
      {result.isPending && <p className="empty">{t('moderation.loading')}</p>}
      {result.data && items.length === 0 && <p className="empty card">{t(QUEUE_EMPTY[queue])}</p>}
      <ul className="queue" ref={list}>
        {items.map((item, index) => (
          <li key={item.id}>
            <article
              className="queue-item card"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: an item takes the focus so that A and R decide on it.
              tabIndex={0}
              aria-label={t(ITEM_LABEL[queue], { name: titleOf(item) })}
              aria-keyshortcuts="A R"
              onKeyDown={(event) => onKey(event, item, index)}
            >
              <div className="queue-body">
                {render(item)}
                <EarlierRejection item={item} banned={queue === 'sites'} />
                {rejecting === item.id && (
                  <RejectForm
                    verb={queue === 'sites' ? t('moderation.ban') : t('moderation.reject')}
                    name={titleOf(item)}
                    pending={decision.isPending}
                    onCancel={() => setRejecting(null)}
                    onReject={(reason) => {
                      setRejecting(null);
                      decision.mutate({ item, status: REJECT, index, reason });
                    }}
                  />
                )}
              </div>
              <div className="decide">
                <button
                  type="button"
                  className="primary"
                  disabled={decision.isPending}
                  onClick={() => decision.mutate({ item, status: APPROVE, index })}
                >
                  {t('moderation.approve')}
                  <span className="visually-hidden"> {titleOf(item)}</span>
                </button>
                <button
                  type="button"
                  className="danger"
                  disabled={decision.isPending}
                  aria-expanded={rejecting === item.id}
                  onClick={() => setRejecting(rejecting === item.id ? null : item.id)}
                >
                  {queue === 'sites' ? t('moderation.ban') : t('moderation.reject')}
                  <span className="visually-hidden"> {titleOf(item)}</span>
                </button>
              </div>
            </article>
          </li>
        ))}
      </ul>
      {result.data && result.data.total > items.length && (
        <p className="hint">{t('moderation.showingOldest', { shown: count(items.length), total: count(result.data.total) })}</p>
      )}
    </section>
  );
}

function Owner({ id, name }: { id: number; name: string }) {
  const { t } = useTranslation('operator');
  return (
    <Link href={`/operator/accounts/${id}`} className="wrap">
      {name || t('moderation.accountNumber', { id })}
    </Link>
  );
}

function CampaignItem({ item }: { item: Campaign }) {
  const { t } = useTranslation('operator');
  return (
    <>
      <h2 className="wrap">{item.title}</h2>
      <dl className="facts">
        <dt>{t('moderation.advertiser')}</dt>
        <dd>
          <Owner id={item.advertiserId} name={item.advertiserName} />
        </dd>
        <dt>{t('moderation.countries')}</dt>
        <dd>{item.geo.length > 0 ? item.geo.join(', ') : t('moderation.allCountries')}</dd>
        <dt>{t('moderation.kind')}</dt>
        <dd>{item.isRetarget ? t('moderation.kindRetargeting') : t('moderation.kindRegular')}</dd>
        <dt>{t('moderation.created')}</dt>
        <dd>{moment(item.date)}</dd>
      </dl>
    </>
  );
}

function AdItem({ item }: { item: Ad }) {
  const { t } = useTranslation('operator');
  return (
    <div className="ad-review">
      <TeaserPreview
        square={item.img?.url ?? null}
        wide={item.img_wide?.url ?? null}
        title={item.title}
        url={item.url}
        price={item.cost}
        label={t('moderation.adPreview', { title: item.title })}
      />
      <div>
        {/* The headline is what blocks show (`title`); a different `opis` reaches only ad exchanges, and is named so. */}
        <h2>{item.title}</h2>
        <dl className="facts">
          {item.opis && item.opis !== item.title && (
            <>
              <dt>{t('moderation.exchangeText')}</dt>
              <dd className="wrap">{item.opis}</dd>
            </>
          )}
          <dt>{t('moderation.leadsTo')}</dt>
          <dd className="wrap">
            <a href={item.url} target="_blank" rel="noopener noreferrer">
              {item.url}
            </a>
            {/^http:\/\//i.test(item.url) && (
              <span className="tag warning" title={t('moderation.plainHttpMeaning')}>
                {t('moderation.plainHttp')}
              </span>
            )}
          </dd>
          <dt>{t('moderation.bidPerClick')}</dt>
          <dd>{fineMoney(item.stavka)}</dd>
          <dt>{t('moderation.campaign')}</dt>
          <dd>
            <span className="wrap">{item.campaignTitle}</span>
          </dd>
          <dt>{t('moderation.advertiser')}</dt>
          <dd>
            <Owner id={item.advertiserId} name={item.advertiserName} />
          </dd>
          {item.img && item.img_wide && (
            <>
              <dt>{t('moderation.widePicture')}</dt>
              <dd>
                <img className="wide" src={item.img_wide.url} alt="" width={120} height={80} />
              </dd>
            </>
          )}
          <dt>{t('moderation.created')}</dt>
          <dd>{moment(item.date)}</dd>
        </dl>
      </div>
    </div>
  );
}

function SiteItem({ item }: { item: Site }) {
  const { t } = useTranslation('operator');
  return (
    <>
      <h2 className="wrap">{item.url}</h2>
      <dl className="facts">
        <dt>{t('moderation.publisher')}</dt>
        <dd>
          <Owner id={item.userId} name={item.userName} />
        </dd>
        <dt>{t('moderation.visit')}</dt>
        <dd>
          <a href={item.url} target="_blank" rel="noopener noreferrer">
            {t('moderation.openSite')}
            <span className="visually-hidden"> {item.url}</span>
          </a>
        </dd>
        <dt>{t('moderation.monthlyVisitors')}</dt>
        <dd>{Number(item.monthly_uniq_users) > 0 ? count(Number(item.monthly_uniq_users)) : t('moderation.notGiven')}</dd>
        {item.sameHostSites.length > 0 && (
          <>
            <dt>{t('moderation.sameHost')}</dt>
            <dd>{t('moderation.sameHostSites', { sites: item.sameHostSites.map((id) => `#${id}`).join(', ') })}</dd>
          </>
        )}
        <SiteAdsTxt siteId={item.id} />
      </dl>
    </>
  );
}

/** Why and when an item sent back to moderation was turned down before (nothing for a first submission). */
function EarlierRejection({ item, banned }: { item: Moderated; banned: boolean }) {
  const { t } = useTranslation('operator');
  const reason = item.lastRejection?.reason ?? item.reason;
  if (item.lastRejection === undefined && !reason) return null;
  return (
    <p className="moderation-reason">
      <strong>
        {item.lastRejection
          ? t(banned ? 'moderation.bannedOn' : 'moderation.rejectedOn', { date: moment(item.lastRejection.date) })
          : t('moderation.rejectedBefore')}
      </strong>{' '}
      {reason || t('moderation.noReasonGiven')}
    </p>
  );
}
