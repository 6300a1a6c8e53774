import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { ListStatus, Notice, Switch } from '../../components/controls.tsx';
import { ADVERTISER_FIGURES, FigureCells, FigureHeads } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { keepingView, PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count } from '../../format.ts';
import { Link, navigate, setQuery, useLocation } from '../../router.tsx';
import { CAMPAIGN_STATUS, statusName, translateNames } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { CampaignBulkBar, useCampaignSelection } from './campaign-bulk.tsx';
import { CampaignForm } from './campaign-form.tsx';

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, oldest first. */
const SORTS = {
  '': 'sort.oldest',
  '-created': 'sort.newest',
  title: 'sort.titleAz',
  '-title': 'sort.titleZa',
} as const;

export function CampaignsPage() {
  const { t } = useTranslation('advertiser');
  const period = usePeriod();
  const goal = useGoal();
  const { query } = useLocation();
  const showArchived = query.get('archived') === '1';
  const type = query.get('type') ?? '';
  const order = useListOrder(SORTS);
  const queryClient = useQueryClient();
  const campaigns = useQuery({
    queryKey: advertiserKeys.campaigns.list(period, showArchived, type, goal, order.key),
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns', {
          params: {
            query: {
              dateFrom: period.from,
              dateTo: period.to,
              archived: showArchived ? 0 : 1,
              targetId: goal,
              ...(type ? { type: Number(type) } : {}),
              ...order.query,
              'per-page': 100,
            },
          },
        }),
      ),
  });
  const change = useMutation({
    mutationFn: ({ id, body }: { id: number; body: { active?: boolean; archived?: boolean } }) =>
      api.PUT('/api/advertiser/campaigns/{id}', { params: { path: { id } }, body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: advertiserKeys.campaigns.all() }),
  });
  const [creating, setCreating] = useState(false);
  const selection = useCampaignSelection();
  // Searched and sorted by the server, so the whole account is searched, not one page of it.
  const rows = campaigns.data ?? [];
  return (
    <>
      <div className="page-head">
        <h1>{t('campaigns.title')}</h1>
        <div className="pickers">
          <GoalPicker />
          <PeriodPicker />
        </div>
      </div>
      <div className="toolbar">
        <ListOrderControls
          subject={t('campaigns.subject')}
          placeholder={t('campaigns.search')}
          sorts={translateNames(SORTS, t)}
        />
        <label>
          <span className="visually-hidden">{t('campaigns.type')}</span>
          <select value={type} onChange={(event) => setQuery({ type: event.target.value })}>
            <option value="">{t('campaigns.allTypes')}</option>
            <option value="2">{t('campaigns.standard')}</option>
            <option value="1">{t('campaigns.retargeting')}</option>
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(event) => setQuery({ archived: event.target.checked ? '1' : '' })}
          />
          {t('campaigns.showArchived')}
        </label>
        <button type="button" className="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {t('campaigns.new')}
        </button>
      </div>
      {creating && <CreateCampaign onDone={() => setCreating(false)} />}
      {(campaigns.error || change.error) && <Notice kind="error">{problem(campaigns.error ?? change.error)}</Notice>}
      <CampaignBulkBar chosen={selection.chosen} onDone={selection.clear} />
      <ScrollRegion label={t('campaigns.title')}>
        <table>
          <caption className="visually-hidden">{t('campaigns.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label={t('campaigns.chooseAll')}
                  checked={rows.length > 0 && rows.every((row) => selection.chosen.has(row.id))}
                  onChange={(event) => (event.target.checked ? selection.setAll(rows.map((row) => row.id)) : selection.clear())}
                />
              </th>
              <th scope="col">{t('campaigns.on')}</th>
              <th scope="col">{t('campaigns.campaign')}</th>
              <th scope="col">{t('figure.status')}</th>
              <th scope="col" className="num">
                {t('campaigns.ads')}
              </th>
              <FigureHeads figures={ADVERTISER_FIGURES} goal={goalNoun(goal)} />
              <th scope="col">
                <span className="visually-hidden">{t('action.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} className={row.archived ? 'archived' : undefined}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={t('campaigns.choose', { title: row.title })}
                    checked={selection.chosen.has(row.id)}
                    onChange={(event) => selection.toggle(row.id, event.target.checked)}
                  />
                </td>
                <td>
                  <Switch
                    checked={row.active}
                    label={t('campaigns.isOn', { title: row.title })}
                    disabled={row.archived}
                    onChange={(active) => change.mutate({ id: row.id, body: { active } })}
                  />
                </td>
                <th scope="row">
                  <Link href={keepingView(`/advertiser/campaigns/${row.id}`)}>{row.title}</Link>
                  {row.isRetarget && <span className="tag">{t('campaigns.retargeting')}</span>}
                </th>
                <td>
                  <span className={`status s${row.status}`}>{statusName(t, CAMPAIGN_STATUS, row.status)}</span>
                </td>
                <td className="num">{count(row.items)}</td>
                <FigureCells figures={ADVERTISER_FIGURES} row={row} />
                <td>
                  <button
                    type="button"
                    className="link"
                    onClick={() => change.mutate({ id: row.id, body: { archived: !row.archived } })}
                  >
                    <Trans
                      t={t}
                      i18nKey={row.archived ? 'campaigns.restore' : 'campaigns.archive'}
                      values={{ title: row.title }}
                      components={{ hidden: <span className="visually-hidden" /> }}
                    />
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={campaigns} empty={rows.length === 0}>
          {t('campaigns.empty')}
        </ListStatus>
      </ScrollRegion>
    </>
  );
}

/** A new campaign: the one campaign form, every section of it, sent as one request. */
function CreateCampaign({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  return (
    <CampaignForm
      onCancel={onDone}
      onSaved={(id) => {
        queryClient.invalidateQueries({ queryKey: advertiserKeys.campaigns.all() });
        onDone();
        navigate(`/advertiser/campaigns/${id}`);
      }}
    />
  );
}
