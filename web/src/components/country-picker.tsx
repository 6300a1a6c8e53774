import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatLocale } from '../format.ts';

/** Two-letter codes the region names know that are not countries (as the API's geo check refuses them). */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'UK', 'AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA', 'XA', 'XB', 'XK']);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Every ISO 3166-1 alpha-2 country with its name in the reader's language, by name. */
function countries(locale: string): { code: string; name: string }[] {
  const names = new Intl.DisplayNames([locale, 'en'], { type: 'region', fallback: 'none' });
  const list: { code: string; name: string }[] = [];
  for (const first of LETTERS) {
    for (const second of LETTERS) {
      const code = first + second;
      if (NOT_COUNTRIES.has(code)) continue;
      const name = names.of(code);
      if (name !== undefined && name !== code) list.push({ code, name });
    }
  }
  return list.sort((a, b) => a.name.localeCompare(b.name, locale));
}

/**
 * Countries chosen by name, with a search (the API keeps ISO codes): the chosen ones first, as
 * buttons that remove them, then the countries that match the search, as checkboxes. No choice
 * means everywhere.
 */
export function CountryPicker({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: readonly string[];
  onChange: (codes: string[]) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  const locale = formatLocale();
  const all = useMemo(() => countries(locale), [locale]);
  const byCode = useMemo(() => new Map(all.map((country) => [country.code, country.name])), [all]);
  const [search, setSearch] = useState('');
  const wanted = search.trim().toLocaleLowerCase(locale);
  const matches =
    wanted === ''
      ? []
      : all.filter((country) => country.name.toLocaleLowerCase(locale).includes(wanted) || country.code.toLowerCase() === wanted);
  const toggle = (code: string, on: boolean) =>
    onChange(on ? [...value.filter((chosen) => chosen !== code), code] : value.filter((chosen) => chosen !== code));
  return (
    <fieldset
      className={`field country-picker${error ? ' invalid' : ''}`}
      aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
    >
      <legend>{label}</legend>
      <p className="hint" id={`${id}-hint`}>
        {value.length === 0 ? t('countries.everywhere') : t('countries.chosen', { count: value.length })}
      </p>
      {value.length > 0 && (
        <ul className="chosen-countries" aria-label={t('countries.chosenList')}>
          {value.map((code) => (
            <li key={code}>
              <button
                type="button"
                className="chip"
                onClick={() => toggle(code, false)}
                aria-label={t('countries.remove', { country: byCode.get(code) ?? code })}
              >
                {byCode.get(code) ?? code} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <label htmlFor={`${id}-search`}>{t('countries.find')}</label>
      <input
        id={`${id}-search`}
        type="search"
        autoComplete="off"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />
      {wanted !== '' && (
        <ul className="country-matches" aria-label={t('countries.matches')}>
          {matches.length === 0 && <li className="hint">{t('countries.noMatch')}</li>}
          {matches.slice(0, 12).map((country) => (
            <li key={country.code}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={value.includes(country.code)}
                  onChange={(event) => toggle(country.code, event.target.checked)}
                />
                {country.name} ({country.code})
              </label>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
