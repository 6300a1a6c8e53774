import { useTranslation } from 'react-i18next';
import { findRoute, helpOf } from '../routes.tsx';

/**
 * Help in place, written for the page's user (web/src/i18n/locales/<language>/help.json): what the
 * page is for, what its fields mean, what happens after saving. Folded under the page so it never
 * pushes the work down; the API reference stays one link away for those who script.
 */
export function PageHelp({ path }: { path: string }) {
  const { t } = useTranslation('help');
  const topic = helpOf(findRoute(path)?.route);
  if (topic === undefined) return null;
  return (
    <aside className="page-help" aria-labelledby="page-help-title">
      <details>
        <summary id="page-help-title">{t('help.title')}</summary>
        <div id="page-help-body">
          <h2>{t('help.purpose')}</h2>
          <p>{t(`${topic}.purpose`)}</p>
          <h2>{t('help.fields')}</h2>
          <ul>
            {t(`${topic}.fields`)
              .split('\n')
              .map((line) => (
                <li key={line}>{line}</li>
              ))}
          </ul>
          <h2>{t('help.after')}</h2>
          <p>{t(`${topic}.after`)}</p>
          <p className="hint">
            <a href="/api/docs">{t('help.api')}</a>
          </p>
        </div>
      </details>
    </aside>
  );
}
