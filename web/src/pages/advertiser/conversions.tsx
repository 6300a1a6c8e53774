import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { CopyField } from '../../components/copy-field.tsx';

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
  const postback = `${origin}/api/serve/conversion?${query}`;
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
        <CopyField label={t('conversions.postback.label')} value={postback} />
        <h3>{t('conversions.pixel.title')}</h3>
        <p>{t('conversions.pixel.text')}</p>
        <CopyField label={t('conversions.pixel.label')} value={pixel} />
        <p className="hint">{t('conversions.hint')}</p>
      </section>
    </>
  );
}
