import { pages } from '@nativa/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { productCategoryName } from '../../components/category-names.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { amountInput, currentPlatform, parseAmount } from '../../format.ts';
import type { Block } from './publisher-data.ts';
import { publisherKeys } from './publisher-keys.ts';

/** Every product category (roots and their children), the names a site's refusals are chosen by. */
function useProductCategories() {
  return useQuery({
    queryKey: publisherKeys.productCategories(),
    queryFn: async () => {
      const all = [];
      for await (const category of pages((page) =>
        api.GET('/api/webmaster/productCategories', { params: { query: { page, 'per-page': 100 } } }),
      ))
        all.push(category);
      return all;
    },
    staleTime: 10 * 60_000,
  });
}

/**
 * The product categories a site refuses (PUT /webmaster/sites/{id}, `refusedCategories`): ads of
 * campaigns filed under one, or ads filed under one, never show on its blocks.
 */
export function SiteBrandSafety({ siteId, refused }: { siteId: number; refused: readonly number[] }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const categories = useProductCategories();
  const [chosen, setChosen] = useState<readonly number[]>(refused);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      data(api.PUT('/api/webmaster/sites/{id}', { params: { path: { id: siteId } }, body: { refusedCategories: [...chosen] } })),
    onSuccess: () => {
      setSaved(true);
      return queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() });
    },
  });
  const { errors, general, submitted } = useFieldErrors(save.error);
  const all = categories.data ?? [];
  const roots = all.filter((category) => category.parent_id === null);
  const childrenOf = (id: number) => all.filter((category) => category.parent_id === id).map((category) => category.id);
  // A refused root refuses its children too (an ad's subcategory is one of its campaign's root):
  // ticking it takes them out of the list, and they show ticked and fixed while it is.
  const toggle = (id: number, on: boolean) => {
    setSaved(false);
    const covered = childrenOf(id);
    setChosen(on ? [...chosen.filter((one) => !covered.includes(one)), id] : chosen.filter((one) => one !== id));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    save.mutate();
  };
  const check = (id: number, title: string, coveredBy?: string) => (
    <label className="check" key={id}>
      <input
        type="checkbox"
        checked={coveredBy !== undefined || chosen.includes(id)}
        disabled={coveredBy !== undefined}
        onChange={(event) => toggle(id, event.target.checked)}
      />
      {title}
      {coveredBy !== undefined && <span className="hint"> {t('brandSafety.covered', { parent: coveredBy })}</span>}
    </label>
  );
  return (
    <form className="card brand-safety" onSubmit={submit} noValidate aria-labelledby="brand-safety-title">
      <h2 id="brand-safety-title">{t('brandSafety.title')}</h2>
      <p className="hint">{t('brandSafety.hint')}</p>
      {(categories.error || general) && <Notice kind="error">{problem(categories.error ?? save.error)}</Notice>}
      <fieldset className="families" aria-describedby={errors.refusedCategories ? 'refusedCategories-error' : undefined}>
        <legend>{t('brandSafety.refused')}</legend>
        {roots.map((root) => {
          const children = all.filter((category) => category.parent_id === root.id);
          return (
            <div key={root.id} className="category-group">
              {check(root.id, productCategoryName(root))}
              {children.length > 0 && (
                <div className="category-children">
                  {children.map((child) =>
                    check(child.id, productCategoryName(child), chosen.includes(root.id) ? productCategoryName(root) : undefined),
                  )}
                </div>
              )}
            </div>
          );
        })}
        {errors.refusedCategories && (
          <p className="error" id="refusedCategories-error">
            {errors.refusedCategories}
          </p>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('saving') : t('brandSafety.save')}
        </button>
        <span role="status">{saved && t('saved')}</span>
      </div>
    </form>
  );
}

/**
 * A block's minimum price of a click (PUT /webmaster/blocks/{id}, `minCpc`): ads bidding less do
 * not compete on it, and no click on it costs less. Empty clears it.
 */
export function BlockFloor({ block }: { block: Block }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState(block.minCpc === undefined ? '' : amountInput(block.minCpc));
  const [local, setLocal] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (minCpc: string) =>
      data(api.PUT('/api/webmaster/blocks/{id}', { params: { path: { id: block.id } }, body: { minCpc } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() }),
  });
  const fields = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fields.submitted();
    if (amount.trim() === '') {
      setLocal(null);
      save.mutate('0');
      return;
    }
    const parsed = parseAmount(amount);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    save.mutate(parsed.amount);
  };
  const name = `minCpc-${block.id}`;
  return (
    <form className="inline-form block-floor" onSubmit={submit} noValidate aria-label={t('floor.form', { title: block.title })}>
      {fields.general && <Notice kind="error">{problem(save.error)}</Notice>}
      <Field
        label={t('floor.label')}
        name={name}
        inputMode="decimal"
        autoComplete="off"
        maxLength={20}
        value={amount}
        error={local ?? fields.errors.minCpc}
        hint={t('floor.hint', { currency: currentPlatform().currency, example: amountInput(0.25) })}
        onChange={(event) => {
          setLocal(null);
          save.reset();
          fields.edited('minCpc');
          setAmount(event.target.value);
        }}
      />
      <button type="submit" disabled={save.isPending}>
        <Trans
          t={t}
          i18nKey="floor.save"
          values={{ title: block.title }}
          components={{ hidden: <span className="visually-hidden" /> }}
        />
      </button>
      <span role="status">{save.isSuccess && t('saved')}</span>
    </form>
  );
}
