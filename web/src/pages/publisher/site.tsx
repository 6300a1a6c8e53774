import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, isNotFound, noRetryOnRefusal, problem, useFormFields } from '../../api.ts';
import { DailyChart } from '../../components/chart.tsx';
import { CompareToggle, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { Missing } from '../../components/missing.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { count } from '../../format.ts';
import { Link } from '../../router.tsx';
import { ModerationReason } from '../shared/moderation-reason.tsx';
import { BlockDesignEditor } from './block-design.tsx';
import { BlockExplanation } from './block-explain.tsx';
import { BlockPreview } from './block-preview.tsx';
import { BlockFloor, SiteBrandSafety } from './brand-safety.tsx';
import { type Block, SITE_STATUS, usePublisherStatistics } from './publisher-data.ts';
import { publisherKeys } from './publisher-keys.ts';
import { IncomeTiles, SiteStatusBadge, useIncomeSeries } from './publisher-ui.tsx';
import { SiteDomains } from './site-domains.tsx';
import { SitePrivacy } from './site-privacy.tsx';

export function SitePage({ id }: { id: number }) {
  const { t } = useTranslation('publisher');
  const period = usePeriod();
  const site = useQuery({
    queryKey: publisherKeys.sites.one(id, period),
    queryFn: () =>
      data(
        api.GET('/api/webmaster/sites/{id}', {
          params: { path: { id }, query: { expand: 'blocks', dateFrom: period.from, dateTo: period.to } },
        }),
      ),
    retry: noRetryOnRefusal,
  });
  // The site's days for its chart, and while comparing the previous period's (otherwise the same query again).
  const statistics = usePublisherStatistics(period, { siteIds: String(id) });
  const comparing = useComparing();
  const before = usePublisherStatistics(comparing ? previousPeriod(period) : period, { siteIds: String(id) });
  const previous = comparing ? before.data : undefined;
  const series = useIncomeSeries(statistics.data?.daily, previous?.daily);
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<number | null>(null);

  if (isNotFound(site.error)) {
    return (
      <Missing
        what={t('site.missing.what')}
        text={t('site.missing.text', { id })}
        back="/publisher/sites"
        backLabel={t('site.missing.back')}
      />
    );
  }
  const current = site.data;
  const status = current?.status;
  const blocks = [...(current?.blocks ?? [])].reverse();
  return (
    <>
      <p className="crumbs">
        <Link href="/publisher/sites">{t('sites.title')}</Link> /
      </p>
      <div className="page-head">
        <h1>{current ? current.url.replace(/^https?:\/\//, '') : t('sites.column.site')}</h1>
        <div className="pickers">
          <PeriodPicker />
          <CompareToggle />
        </div>
      </div>
      {site.error && <Notice kind="error">{problem(site.error)}</Notice>}
      {current && (
        <p className="site-address">
          {t('site.address')}: <a href={current.url}>{current.url}</a>
        </p>
      )}
      {current && status && (
        <>
          <div className={`status-box site-${status}`}>
            <SiteStatusBadge status={status} />
            <p>{t(SITE_STATUS[status].meaning)}</p>
          </div>
          <ModerationReason
            what="site"
            reason={current.moderationReason}
            rejected={status === 'banned'}
            resubmit={() => api.POST('/api/webmaster/sites/{id}/resubmit', { params: { path: { id } } })}
            onResubmitted={() => queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() })}
          />
          <IncomeTiles label={t('site.figures')} figures={current} previous={previous?.totals} />
          {statistics.data && (
            <section className="card" aria-labelledby="site-daily-title">
              <h2 id="site-daily-title">{t('overview.daily')}</h2>
              <DailyChart days={statistics.data.daily.days} series={series} label={t('site.chart')} />
            </section>
          )}
          <SitePrivacy siteId={id} />
          <SiteBrandSafety siteId={id} refused={current.refusedCategories ?? []} />
          <SiteDomains siteId={id} domains={current.domains ?? []} />
        </>
      )}

      <section aria-labelledby="blocks-title">
        <div className="section-head">
          <h2 id="blocks-title">{t('sites.column.blocks')}</h2>
          {current && status !== 'banned' && (
            <button type="button" className="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
              {t('block.new')}
            </button>
          )}
        </div>
        {adding && (
          <CreateBlock
            siteId={id}
            onDone={() => setAdding(false)}
            onCreated={(blockId) => {
              setCreated(blockId);
              setAdding(false);
            }}
          />
        )}
        {current && blocks.length === 0 && !adding && <p className="empty">{t('site.noBlocks')}</p>}
        <ul className="blocks">
          {blocks.map((block) => (
            <BlockCard key={block.id} block={block} siteId={id} fresh={block.id === created} />
          ))}
        </ul>
      </section>
    </>
  );
}

function BlockCard({ block, siteId, fresh }: { block: Block; siteId: number; fresh: boolean }) {
  const { t } = useTranslation('publisher');
  const hidden = { hidden: <span className="visually-hidden" /> };
  const title = { title: block.title };
  const [previewing, setPreviewing] = useState(fresh);
  const [explaining, setExplaining] = useState(false);
  const [designing, setDesigning] = useState(false);
  return (
    <li className="card block" aria-labelledby={`block-${block.id}-title`}>
      <div className="block-head">
        <h3 id={`block-${block.id}-title`}>{block.title}</h3>
        <span className="sub">{t('block.summary', { id: block.id, count: block.count, teasers: count(block.count) })}</span>
        <Link href={`/publisher/statistics?site=${siteId}&block=${block.id}`} className="block-stats">
          <Trans t={t} i18nKey="block.statistics" values={title} components={hidden} />
        </Link>
      </div>
      {fresh && <Notice kind="ok">{t('block.created')}</Notice>}
      <EmbedCode code={block.bn} title={block.title} id={block.id} />
      <button type="button" className="link" onClick={() => setPreviewing(!previewing)} aria-expanded={previewing}>
        <Trans t={t} i18nKey={previewing ? 'block.preview.hide' : 'block.preview.show'} values={title} components={hidden} />
      </button>
      {previewing && <BlockPreview count={block.count} label={t('block.preview.label', title)} />}
      <button type="button" className="link" onClick={() => setExplaining(!explaining)} aria-expanded={explaining}>
        <Trans t={t} i18nKey={explaining ? 'block.explain.hide' : 'block.explain.show'} values={title} components={hidden} />
      </button>
      {explaining && <BlockExplanation blockId={block.id} title={block.title} />}
      <button type="button" className="link" onClick={() => setDesigning(!designing)} aria-expanded={designing}>
        <Trans t={t} i18nKey={designing ? 'block.design.hide' : 'block.design.show'} values={title} components={hidden} />
      </button>
      {designing && <BlockDesignEditor block={block} />}
      <BlockFloor block={block} />
    </li>
  );
}

/** The block's code in a read-only field (select it, or press Copy), as it goes into the page. */
function EmbedCode({ code, title, id }: { code: string; title: string; id: number }) {
  const { t } = useTranslation('publisher');
  const field = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | ''>('');
  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(code);
      setCopied('yes');
    } catch {
      // No clipboard permission (an old browser, a locked-down profile): the text stays selected for Ctrl+C.
      setCopied(document.execCommand?.('copy') ? 'yes' : 'no');
    }
  };
  return (
    <div className="embed">
      <label htmlFor={`code-${id}`}>{t('block.code.label')}</label>
      <div className="embed-row">
        <textarea
          id={`code-${id}`}
          className="embed-code"
          readOnly
          rows={3}
          spellCheck={false}
          value={code}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={copy}>
          <Trans
            t={t}
            i18nKey="block.code.copy"
            values={{ title }}
            components={{ hidden: <span className="visually-hidden" /> }}
          />
        </button>
      </div>
      <p className="hint" role="status">
        {copied === 'yes' && t('block.code.copied')}
        {copied === 'no' && t('block.code.notCopied')}
      </p>
    </div>
  );
}

function CreateBlock({ siteId, onDone, onCreated }: { siteId: number; onDone: () => void; onCreated: (id: number) => void }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ title: '', count: '4' });
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/webmaster/sites/{id}/blocks', {
          params: { path: { id: siteId } },
          body: { title: form.title, count: Number(form.count) },
        }),
      ),
    onSuccess: async (block) => {
      await queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() });
      onCreated(block.id);
    },
  });
  const { general, field, submit } = useFormFields(form, setForm, create);
  const teasers = Number(form.count);
  return (
    <form className="card create-block" onSubmit={submit} noValidate aria-label={t('block.new')}>
      <div className="form-grid">
        <h3>{t('block.new')}</h3>
        {general && <Notice kind="error">{problem(create.error)}</Notice>}
        <Field label={t('block.field.name')} hint={t('block.field.nameHint')} required {...field('title')} />
        <Field
          label={t('block.field.count')}
          type="number"
          min={1}
          max={20}
          hint={t('block.field.countHint')}
          required
          {...field('count')}
        />
        <FormActions submit={t('block.submit')} busy={t('block.submitting')} pending={create.isPending} onCancel={onDone} />
      </div>
      <BlockPreview
        count={Number.isInteger(teasers) && teasers >= 1 && teasers <= 20 ? teasers : 4}
        label={t('block.preview.newLabel')}
      />
    </form>
  );
}
