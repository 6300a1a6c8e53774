import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data } from '../api.ts';
import { currentLanguage, LANGUAGE_NAMES, LANGUAGES, type Language, showLanguage } from '../i18n/i18n.ts';
import { appKeys } from '../query-keys.ts';

/**
 * The language picker of every page. Signed in, the choice is the account's (its e-mails follow
 * it, and every browser it signs in on); signed out, it is this browser's.
 */
export function LanguageSwitcher({ signedIn, onPick }: { signedIn: boolean; onPick?: (language: Language) => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (language: Language) => data(api.PUT('/api/me/language', { body: { language } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: appKeys.me() }),
  });
  return (
    <label className="language">
      <span className="visually-hidden">{t('language.label')}</span>
      <select
        value={currentLanguage()}
        lang={currentLanguage()}
        onChange={(event) => {
          const language = event.target.value as Language;
          void showLanguage(language);
          if (signedIn) save.mutate(language);
          onPick?.(language);
        }}
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
    </label>
  );
}
