import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFormFields } from '../../api.ts';
import { siteCategoryName } from '../../components/category-names.ts';
import { Field, FormActions, ListStatus, Notice } from '../../components/controls.tsx';
import { FigureCells, FigureHeads, PUBLISHER_FIGURES } from '../../components/figures.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, parseWholeNumber } from '../../format.ts';
import { Link, navigate, setQuery, useLocation } from '../../router.tsx';
import { SITE_STATUS, useSiteCategories, useSites } from './publisher-data.ts';
import { publisherKeys } from './publisher-keys.ts';
import { SiteStatusBadge, translatedNames } from './publisher-ui.tsx';

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, oldest first. */
const SITE_SORTS = {
  '': 'sites.sort.oldest',
  '-created': 'sites.sort.newest',
  url: 'sites.sort.addressAscending',
  '-url': 'sites.sort.addressDescending',
} as const;

export function SitesPage() {
  const { t } = useTranslation('publisher');
  const sorts = translatedNames(SITE_SORTS, t);
  const period = usePeriod();
  const { query } = useLocation();
  const adding = query.get('add') === '1';
  const status = query.get('status') ?? '';
  // Searched and sorted by the server, like every list of the account.
  const order = useListOrder(sorts);
  const sites = useSites(period, { order: order.query });
  const categories = useSiteCategories();
  const categoryTitle = (id: string) => {
    const category = categories.data?.find((candidate) => String(candidate.id) === id);
    return category ? siteCategoryName(category) : '';
  };
  const rows = (sites.data ?? []).filter((site) => status === '' || site.status === status);
  return (
    <>
      <div className="page-head">
        <h1>{t('sites.title')}</h1>
        <PeriodPicker />
      </div>
      <div className="toolbar">
        <ListOrderControls subject={t('sites.subject')} placeholder={t('sites.search')} sorts={sorts} />
        <label>
          <span className="visually-hidden">{t('sites.status')}</span>
          <select value={status} onChange={(event) => setQuery({ status: event.target.value })}>
            <option value="">{t('sites.allStatuses')}</option>
            {Object.entries(SITE_STATUS).map(([value, { label }]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="primary" onClick={() => setQuery({ add: adding ? '' : '1' })} aria-expanded={adding}>
          {t('sites.add')}
        </button>
      </div>
      {adding && <AddSite onDone={() => setQuery({ add: '' })} />}
      {sites.error && <Notice kind="error">{problem(sites.error)}</Notice>}
      <ScrollRegion label={t('sites.title')}>
        <table>
          <caption className="visually-hidden">{t('sites.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('sites.column.site')}</th>
              <th scope="col">{t('sites.status')}</th>
              <th scope="col" className="num">
                {t('sites.column.blocks')}
              </th>
              <FigureHeads figures={PUBLISHER_FIGURES} />
            </tr>
          </thead>
          <tbody>
            {rows.map((site) => (
              <tr key={site.id}>
                <th scope="row">
                  <Link href={`/publisher/sites/${site.id}`}>{site.url.replace(/^https?:\/\//, '')}</Link>
                  <span className="sub">{categoryTitle(site.category_id)}</span>
                </th>
                <td>
                  <SiteStatusBadge status={site.status} />
                  {site.status !== 'active' && <span className="sub status-meaning">{t(SITE_STATUS[site.status].summary)}</span>}
                </td>
                <td className="num">{count(site.blocks_count)}</td>
                <FigureCells figures={PUBLISHER_FIGURES} row={site} />
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={sites} empty={rows.length === 0}>
          {status ? t('sites.noneWithStatus') : t('sites.empty')}
        </ListStatus>
      </ScrollRegion>
    </>
  );
}

/**
 * A site's address as the API takes it: what a person types is often the domain alone
 * ("news.example"), which gets https:// in front; anything with a scheme is left for the API to judge.
 */
function withScheme(address: string): string {
  const written = address.trim();
  return written === '' || /^[a-z][a-z\d+.-]*:/i.test(written) ? written : `https://${written.replace(/^\/\//, '')}`;
}

function AddSite({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const categories = useSiteCategories();
  const [form, setForm] = useState({ url: '', category_id: '', monthly_uniq_users: '' });
  const [visitorsError, setVisitorsError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (visitors: number | undefined) =>
      data(
        api.POST('/api/webmaster/sites', {
          body: {
            url: withScheme(form.url),
            // The API names the field when it is missing or wrong; 0 is never a category.
            category_id: Number(form.category_id || 0),
            ...(visitors === undefined ? {} : { monthly_uniq_users: visitors }),
          },
        }),
      ),
    onSuccess: (site) => {
      queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() });
      onDone();
      navigate(`/publisher/sites/${site.id}`);
    },
  });
  // Visitors are read as the reader groups digits ("50,000", "50 000"), or refused here (parseWholeNumber).
  const { errors, general, set, field, submit } = useFormFields(form, setForm, {
    error: create.error,
    mutate: () => {
      setForm({ ...form, url: withScheme(form.url) });
      const visitors = form.monthly_uniq_users.trim() === '' ? undefined : parseWholeNumber(form.monthly_uniq_users);
      setVisitorsError(visitors === undefined || visitors.ok ? null : visitors.message);
      if (visitors === undefined || visitors.ok) create.mutate(visitors?.value);
    },
  });
  const roots = (categories.data ?? []).filter((category) => category.parent_id === null);
  const childrenOf = (id: number) => (categories.data ?? []).filter((category) => category.parent_id === id);
  return (
    <form className="card form-grid" onSubmit={submit} noValidate aria-label={t('sites.add')}>
      <h2>{t('sites.add')}</h2>
      <p className="hint wide">{t('sites.addHint')}</p>
      {general && <Notice kind="error">{problem(create.error)}</Notice>}
      {categories.error && <Notice kind="error">{problem(categories.error)}</Notice>}
      <Field
        label={t('sites.field.address')}
        inputMode="url"
        autoComplete="url"
        autoCapitalize="none"
        spellCheck={false}
        placeholder="news.example"
        required
        hint={t('sites.field.addressHint')}
        {...field('url')}
        onBlur={() => setForm({ ...form, url: withScheme(form.url) })}
      />
      <Field label={t('sites.field.category')} name="category_id" error={errors.category_id}>
        <select
          id="field-category_id"
          required
          value={form.category_id}
          onChange={set('category_id')}
          aria-invalid={errors.category_id ? true : undefined}
          aria-describedby={errors.category_id ? 'category_id-error' : undefined}
        >
          <option value="">{t('sites.field.choose')}</option>
          {roots.map((root) => {
            const children = childrenOf(root.id);
            if (children.length === 0)
              return (
                <option key={root.id} value={root.id}>
                  {siteCategoryName(root)}
                </option>
              );
            return (
              <optgroup key={root.id} label={siteCategoryName(root)}>
                <option value={root.id}>{t('sites.field.categoryGeneral', { category: siteCategoryName(root) })}</option>
                {children.map((child) => (
                  <option key={child.id} value={child.id}>
                    {siteCategoryName(child)}
                  </option>
                ))}
              </optgroup>
            );
          })}
        </select>
      </Field>
      <Field
        label={t('sites.field.monthlyVisitors')}
        inputMode="numeric"
        autoComplete="off"
        {...field('monthly_uniq_users')}
        error={visitorsError ?? errors.monthly_uniq_users}
        onChange={(event) => {
          setVisitorsError(null);
          field('monthly_uniq_users').onChange(event);
        }}
      />
      <FormActions submit={t('sites.submit')} busy={t('sites.submitting')} pending={create.isPending} onCancel={onDone} />
    </form>
  );
}
