import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { moment } from '../../format.ts';
import { advertiserKeys } from './advertiser-keys.ts';

const GOALS = [
  { id: 'purchase', label: 'conversions.goal.purchase' },
  { id: 'registration', label: 'conversions.goal.registration' },
  { id: 'intermediate', label: 'conversions.goal.intermediate' },
] as const;

/** The code a sentence of the page names, kept out of the catalogues (it is the same in every language). */
const CODE = {
  clickId: <code>{'{click_id}'}</code>,
  clickIdName: <code>click_id</code>,
  recorded: <code>{'{"result":"recorded"}'}</code>,
  duplicate: <code>{'{"result":"duplicate"}'}</code>,
};

/**
 * How an advertiser reports conversions: the click id travels in the landing URL (`{click_id}`),
 * and comes back from the shop's server (postback) or its thank-you page (pixel).
 */
export function ConversionsPage() {
  const { t } = useTranslation('advertiser');
  const [goal, setGoal] = useState<(typeof GOALS)[number]['id']>('purchase');
  // The page is served by the API server itself, so its origin is the one visitors' clicks reach.
  const origin = location.origin;
  const query = `click_id={click_id}&goal=${goal}`;
  const key = usePostbackKey();
  const postback = `${origin}/api/serve/conversion?${query}&key=${key.made?.key ?? t('conversions.key.placeholder')}`;
  const pixel = `<img src="${origin}/api/serve/pixel.gif?${query}" width="1" height="1" alt="">`;
  return (
    <>
      <div className="page-head">
        <h1>{t('conversions.title')}</h1>
      </div>
      <p className="lead">{t('conversions.lead')}</p>

      <section className="card steps" aria-labelledby="step-click-id">
        <h2 id="step-click-id">{t('conversions.step1')}</h2>
        <p>
          <Trans t={t} i18nKey="conversions.step1.text" components={CODE} />
        </p>
        <pre className="example">
          {`https://shop.example/shoes?utm_source=nativa&click_id={click_id}
→ https://shop.example/shoes?utm_source=nativa&click_id=Zm9vYmFyYmF6cXV4MTIz`}
        </pre>
        <p>
          <Trans t={t} i18nKey="conversions.step1.keep" components={CODE} />
        </p>
      </section>

      <section className="card steps" aria-labelledby="step-report">
        <h2 id="step-report">{t('conversions.step2')}</h2>
        <label className="goal">
          <span>{t('conversions.goal')}</span>
          <select value={goal} onChange={(event) => setGoal(event.target.value as typeof goal)}>
            {GOALS.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {t(entry.label)}
              </option>
            ))}
          </select>
        </label>
        <h3>{t('conversions.postback.title')}</h3>
        <p>
          <Trans t={t} i18nKey="conversions.postback.text" components={CODE} />
        </p>
        <PostbackKey state={key} />
        <CopyField label={t('conversions.postback.label')} value={postback} />
        <h3>{t('conversions.pixel.title')}</h3>
        <p>{t('conversions.pixel.text')}</p>
        <CopyField label={t('conversions.pixel.label')} value={pixel} />
        <p className="hint">{t('conversions.hint')}</p>
      </section>
    </>
  );
}

/** The advertiser's postback key: its state, and a new one made (shown this once). */
function usePostbackKey() {
  const queryClient = useQueryClient();
  const state = useQuery({
    queryKey: advertiserKeys.postbackKey(),
    queryFn: () => data(api.GET('/api/advertiser/postback-key')),
  });
  const rotate = useMutation({
    mutationFn: () => data(api.POST('/api/advertiser/postback-key')),
    onSettled: () => queryClient.invalidateQueries({ queryKey: advertiserKeys.postbackKey() }),
  });
  const revoke = useMutation({
    mutationFn: () => api.DELETE('/api/advertiser/postback-key'),
    onSuccess: () => rotate.reset(),
    onSettled: () => queryClient.invalidateQueries({ queryKey: advertiserKeys.postbackKey() }),
  });
  return { state, rotate, revoke, made: rotate.data };
}

/**
 * Postbacks count only with the advertiser's key: made here, shown once (only its hash is kept),
 * replaced or deleted at will.
 */
function PostbackKey({ state }: { state: ReturnType<typeof usePostbackKey> }) {
  const { t } = useTranslation('advertiser');
  const current = state.state.data;
  const error = state.state.error ?? state.rotate.error ?? state.revoke.error;
  return (
    <div className="postback-key">
      <h4 id="postback-key-title">{t('conversions.key.title')}</h4>
      <p>{t('conversions.key.text')}</p>
      {current?.exists && !state.made && (
        <p>
          {t('conversions.key.current', {
            prefix: current.prefix ?? '',
            created: current.createdAt ? moment(current.createdAt) : '',
          })}
        </p>
      )}
      {state.state.isSuccess && !current?.exists && <p className="empty">{t('conversions.key.none')}</p>}
      {state.made && (
        <Notice kind="ok">
          {t('conversions.key.made')} <code className="secret">{state.made.key}</code>
        </Notice>
      )}
      {error && <Notice kind="error">{problem(error)}</Notice>}
      <p className="actions">
        <button type="button" className="primary" disabled={state.rotate.isPending} onClick={() => state.rotate.mutate()}>
          {current?.exists ? t('conversions.key.rotate') : t('conversions.key.create')}
        </button>
        {current?.exists && (
          <button type="button" className="link danger" disabled={state.revoke.isPending} onClick={() => state.revoke.mutate()}>
            {t('conversions.key.delete')}
          </button>
        )}
      </p>
    </div>
  );
}
