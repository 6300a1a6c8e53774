import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError, api, data, fieldErrors, isNotFound, problem } from '../../api.ts';
import { CompareToggle, change, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Field, Notice } from '../../components/controls.tsx';
import { ExportDownload } from '../../components/export-download.tsx';
import { ADVERTISER_FIGURES, FigureCells, FigureHeads, Tile } from '../../components/figures.tsx';
import { type GoalId, GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { Pager } from '../../components/pager.tsx';
import { type Period, PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, money, percent } from '../../format.ts';
import { Link } from '../../router.tsx';
import { useTotals } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { CampaignHead, CampaignNotFound, useCampaign } from './campaign-nav.tsx';
import { FilteredClicks } from './filtered-clicks.tsx';

const PER_PAGE = 100;
const DEVICE_NAMES = { desktop: 'device.desktop', mobile: 'device.phone', tablet: 'device.tablet' } as const;
/** A device inside a sentence ("Coefficient for phone"). */
const DEVICE_IN_SENTENCE = {
  desktop: 'traffic.deviceLower.desktop',
  mobile: 'traffic.deviceLower.mobile',
  tablet: 'traffic.deviceLower.tablet',
} as const;

type Translate = ReturnType<typeof useTranslation<'advertiser'>>['t'];

/**
 * Where a campaign's clicks come from (sites, their blocks, device types) and the quality
 * coefficient of each, edited in the table itself: the coefficient multiplies the bid for that
 * traffic, so it is set beside the figures that justify it.
 */
export function CampaignTrafficPage({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const period = usePeriod();
  const goal = useGoal();
  const [page, setPage] = useState(1);
  const queryClient = useQueryClient();
  const range = { dateFrom: period.from, dateTo: period.to, targetId: goal };
  const campaign = useCampaign(id);
  const sites = useQuery({
    queryKey: advertiserKeys.traffic.sites(id, period, goal, page),
    queryFn: async () => {
      const { data: rows, response } = await api.GET('/api/advertiser/campaigns/multipliers/{campaign}', {
        params: { path: { campaign: id }, query: { ...range, page, 'per-page': PER_PAGE } },
      });
      return { rows: rows ?? [], pageCount: Number(response.headers.get('X-Pagination-Page-Count') ?? 1) };
    },
    enabled: campaign.isSuccess,
  });
  const devices = useQuery({
    queryKey: advertiserKeys.traffic.devices(id, period, goal),
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns/multipliers/{campaign}/device', { params: { path: { campaign: id }, query: range } }),
      ),
    enabled: campaign.isSuccess,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: advertiserKeys.traffic.ofCampaign(id) });
  const saveSite = (site: string) => async (coef: number) => {
    await data(
      api.PUT('/api/advertiser/campaigns/multipliers/{campaign}/site/{id}', {
        params: { path: { campaign: id, id: site } },
        body: { coef },
      }),
    );
    await refresh();
  };
  const saveDevice = (type: string) => async (coef: number) => {
    await data(
      api.PUT('/api/advertiser/campaigns/multipliers/{campaign}/device/{type}', {
        params: { path: { campaign: id, type } },
        body: { coef },
      }),
    );
    await refresh();
  };

  if (isNotFound(campaign.error)) {
    return <CampaignNotFound id={id} />;
  }
  const noun = goalNoun(goal);
  return (
    <>
      <CampaignHead id={id} title={campaign.data?.title} current={'/traffic'}>
        <GoalPicker />
        <PeriodPicker />
        <CompareToggle />
      </CampaignHead>
      <TrafficTotals campaignId={id} period={period} goal={goal} />
      <p className="lead">{t('traffic.lead')}</p>
      {(campaign.error || sites.error || devices.error) && (
        <Notice kind="error">{problem(campaign.error ?? sites.error ?? devices.error)}</Notice>
      )}

      <FilteredClicks period={period} campaignId={id} />

      <section className="card" aria-labelledby="devices-title">
        <h2 id="devices-title">{t('traffic.devices')}</h2>
        <ScrollRegion label={t('traffic.devices')}>
          <table className="traffic">
            <thead>
              <TrafficHeads first={t('traffic.device')} noun={noun} />
            </thead>
            <tbody>
              {(devices.data ?? []).map((row) => (
                <tr key={row.device}>
                  <th scope="row">{t(DEVICE_NAMES[row.device])}</th>
                  <td className="coef-cell">
                    <CoefficientInput
                      label={t('traffic.coefficientFor', { what: t(DEVICE_IN_SENTENCE[row.device]) })}
                      value={row.coef}
                      save={saveDevice(row.device)}
                    />
                  </td>
                  <FigureCells figures={ADVERTISER_FIGURES} row={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>

      <section className="card" aria-labelledby="sites-title">
        <h2 id="sites-title">{t('traffic.sites')}</h2>
        <ScrollRegion label={t('traffic.sites')}>
          <table className="traffic">
            <thead>
              <TrafficHeads first={t('traffic.siteOrBlock')} noun={noun} />
            </thead>
            <tbody>
              {(sites.data?.rows ?? []).map((row) => {
                const [site, block] = row.site_id.split('s');
                return (
                  <tr key={row.site_id} className={block ? 'block-row' : undefined}>
                    <th scope="row">
                      {block ? (
                        <>
                          <span aria-hidden="true">↳ </span>
                          <Trans
                            t={t}
                            i18nKey="traffic.blockRow"
                            values={{ block, site }}
                            components={{ hidden: <span className="visually-hidden" /> }}
                          />{' '}
                          <Link className="explain-link" href={`/advertiser/campaigns/${id}/explain?block=${block}`}>
                            <Trans
                              t={t}
                              i18nKey="traffic.why"
                              values={{ block }}
                              components={{ hidden: <span className="visually-hidden" /> }}
                            />
                          </Link>
                        </>
                      ) : (
                        t('traffic.siteRow', { site })
                      )}
                    </th>
                    <td className="coef-cell">
                      <CoefficientInput
                        label={t('traffic.coefficientFor', { what: describe(row.site_id, t) })}
                        value={row.coef}
                        save={saveSite(row.site_id)}
                      />
                    </td>
                    <FigureCells figures={ADVERTISER_FIGURES} row={row} />
                  </tr>
                );
              })}
            </tbody>
          </table>
          {sites.isSuccess && sites.data.rows.length === 0 && <p className="empty">{t('traffic.empty')}</p>}
          {sites.isPending && campaign.isSuccess && <p className="empty">{t('traffic.loading')}</p>}
        </ScrollRegion>
        <Pager page={page} pageCount={sites.data?.pageCount ?? 1} label={t('traffic.pager')} onPage={setPage} />
        <BlockCoefficientForm campaignId={id} onSaved={refresh} />
      </section>
      <ExportDownload kind="advertiser" campaignId={id} />
    </>
  );
}

/** A traffic table's headings: what the row is, its coefficient, then its figures. */
function TrafficHeads({ first, noun }: { first: string; noun: string }) {
  const { t } = useTranslation('advertiser');
  return (
    <tr>
      <th scope="col">{first}</th>
      <th scope="col">{t('figure.coefficient')}</th>
      <FigureHeads figures={ADVERTISER_FIGURES} goal={noun} />
    </tr>
  );
}

const written = (value: number) => String(Number(value.toFixed(4)));

/** `123` → "site 123", `123s45` → "block 45 of site 123". */
function describe(siteId: string, t: Translate): string {
  const [site, block] = siteId.split('s');
  return block ? t('traffic.describe.block', { block, site }) : t('traffic.describe.site', { site });
}

/**
 * A coefficient edited where it is shown: Enter or leaving the field saves a changed value,
 * Escape puts the saved one back. The API decides what is allowed (0.1 to 10); its refusal is
 * shown beside the value, which stays as typed so it can be corrected.
 */
function CoefficientInput({ label, value, save }: { label: string; value: number; save: (coef: number) => Promise<void> }) {
  const { t } = useTranslation('advertiser');
  const [draft, setDraft] = useState(written(value));
  const [error, setError] = useState('');
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');
  const [id] = useState(() => `coef-${Math.random().toString(36).slice(2)}`);
  useEffect(() => {
    setDraft(written(value));
    setError('');
  }, [value]);

  const commit = async () => {
    const text = draft.trim().replace(',', '.');
    if (text === written(value) || state === 'saving') return;
    const coef = Number(text);
    if (text === '' || !Number.isFinite(coef)) {
      setError(t('traffic.coef.invalid'));
      return;
    }
    setState('saving');
    try {
      await save(coef);
      setError('');
      setState('saved');
    } catch (failure) {
      setError(fieldErrors(failure).coef ?? problem(failure));
      setState('idle');
    }
  };
  const keys = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void commit();
    } else if (event.key === 'Escape') {
      setDraft(written(value));
      setError('');
    }
  };
  return (
    <div className={`coef${error ? ' invalid' : ''}`}>
      <input
        type="text"
        className="coef-input"
        inputMode="decimal"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        value={draft}
        size={5}
        onChange={(event) => {
          setDraft(event.target.value);
          setState('idle');
        }}
        onKeyDown={keys}
        onBlur={() => void commit()}
      />
      <span className="coef-state" role="status">
        {state === 'saving' ? t('action.saving') : state === 'saved' ? t('traffic.coef.saved') : ''}
      </span>
      {error && (
        <span className="error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** Blocks are listed once they have a coefficient; this sets the first one (`123s45`) or any site's. */
function BlockCoefficientForm({ campaignId, onSaved }: { campaignId: number; onSaved: () => Promise<void> }) {
  const { t } = useTranslation('advertiser');
  const [target, setTarget] = useState('');
  const [coef, setCoef] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved('');
    const site = target.trim();
    try {
      // A value that is not a number goes as null, so the API names the field with its own words.
      const value = Number(coef.trim().replace(',', '.'));
      const result = await data(
        api.PUT('/api/advertiser/campaigns/multipliers/{campaign}/site/{id}', {
          params: { path: { campaign: campaignId, id: site || '0' } },
          body: { coef: coef.trim() === '' ? Number.NaN : value },
        }),
      );
      setError(null);
      setSaved(t('traffic.setFor', { coef: written(result.coef), what: describe(site, t) }));
      setTarget('');
      setCoef('');
      await onSaved();
    } catch (failure) {
      setError(failure);
    }
  };
  const errors = fieldErrors(error);
  const targetError =
    error instanceof ApiError && error.status === 404 ? t('traffic.notFound', { target: target.trim() }) : undefined;
  return (
    <form className="inline-form coef-form" onSubmit={submit} noValidate aria-label={t('traffic.form.label')}>
      <h3>{t('traffic.form.title')}</h3>
      {error !== null && !targetError && Object.keys(errors).length === 0 && <Notice kind="error">{problem(error)}</Notice>}
      {saved && <Notice kind="ok">{saved}</Notice>}
      <Field
        label={t('traffic.siteOrBlock')}
        name="target"
        placeholder={t('traffic.form.targetPlaceholder')}
        hint={t('traffic.form.targetHint')}
        value={target}
        error={targetError}
        onChange={(event) => setTarget(event.target.value)}
      />
      <Field
        label={t('figure.coefficient')}
        name="coef"
        inputMode="decimal"
        placeholder="1.5"
        hint={t('traffic.form.coefHint')}
        value={coef}
        error={errors.coef}
        onChange={(event) => setCoef(event.target.value)}
      />
      <button type="submit" className="primary">
        {t('traffic.form.submit')}
      </button>
    </form>
  );
}

/** The campaign's figures for the period above its tables; while comparing, each with its change on the previous period. */
function TrafficTotals({ campaignId, period, goal }: { campaignId: number; period: Period; goal: GoalId }) {
  const { t } = useTranslation('advertiser');
  const comparing = useComparing();
  const totals = useTotals(period, String(campaignId), goal);
  const previous = useTotals(previousPeriod(period), String(campaignId), goal, comparing);
  const now = totals.data;
  const was = comparing ? previous.data : undefined;
  if (!now) return null;
  return (
    <section className="tiles" aria-label={t('tiles.label')}>
      <Tile label={t('figure.spend')} value={money(now.money)} note={change(now.money, was?.money)} />
      <Tile label={t('figure.clicks')} value={count(now.clicks)} note={change(now.clicks, was?.clicks)} />
      <Tile label={t('figure.views')} value={count(now.views)} note={change(now.views, was?.views)} />
      <Tile label="CTR" value={percent(now.ctr)} note={change(now.ctr, was?.ctr)} />
      <Tile label={goalNoun(goal)} value={count(now.orders)} note={change(now.orders, was?.orders)} />
    </section>
  );
}
