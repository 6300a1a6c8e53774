import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatLocale } from '../format.ts';
import { countryName, currentCountries, findCountries } from './countries.ts';

/**
 * Countries chosen by name, with a search (the API keeps ISO codes): the chosen ones first, as
 * buttons that remove them, then the current countries that match the search (by name in English
 * or Russian, code or alias: countries.ts), as checkboxes. No choice means everywhere.
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
  const all = useMemo(() => currentCountries(locale), [locale]);
  const [search, setSearch] = useState('');
  const wanted = search.trim();
  const matches = useMemo(() => findCountries(all, wanted), [all, wanted]);
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
                aria-label={t('countries.remove', { country: countryName(code, locale) })}
              >
                {countryName(code, locale)} <span aria-hidden="true">×</span>
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
