import { useTranslation } from 'react-i18next';
import type { AdvertiserKey } from './advertiser-data.ts';

/** A choice by its product name, the same in every language, or a catalogue key where words describe. */
export type ChoiceName = { name: string } | { key: AdvertiserKey };
export type Choices = readonly (readonly [string, ChoiceName])[];

/** Device types as the API names them (`devices`, explain's `device`), in the advertiser's words. */
export const DEVICE_CHOICES: Choices = [
  ['desktop', { key: 'device.desktop' }],
  ['mobile', { key: 'device.phone' }],
  ['tablet', { key: 'device.tablet' }],
];
export const OS_CHOICES: Choices = [
  ['windows', { name: 'Windows' }],
  ['macos', { name: 'macOS' }],
  ['ios', { key: 'control.os.ios' }],
  ['android', { name: 'Android' }],
  ['linux', { name: 'Linux' }],
  ['chromeos', { name: 'ChromeOS' }],
  ['other', { key: 'control.os.other' }],
];
export const BROWSER_CHOICES: Choices = [
  ['chrome', { name: 'Chrome' }],
  ['safari', { name: 'Safari' }],
  ['firefox', { name: 'Firefox' }],
  ['edge', { name: 'Edge' }],
  ['opera', { name: 'Opera' }],
  ['samsung', { name: 'Samsung Internet' }],
  ['yandex', { name: 'Yandex' }],
  ['other', { key: 'control.browsers.other' }],
];

/** A choice's words in the page's language. */
export function useChoiceName() {
  const { t } = useTranslation('advertiser');
  return (name: ChoiceName) => ('key' in name ? t(name.key) : name.name);
}

/** Checkboxes of a target list (devices, systems, browsers): none ticked means every one. */
export function TargetChoices({
  name,
  legend,
  choices,
  value,
  error,
  onChange,
}: {
  name: string;
  legend: string;
  choices: Choices;
  value: readonly string[];
  error: string | undefined;
  onChange: (value: string[]) => void;
}) {
  const { t } = useTranslation('advertiser');
  const words = useChoiceName();
  return (
    <fieldset className="families" aria-describedby={error ? `${name}-error` : undefined}>
      <legend>{legend}</legend>
      <p className="hint">{t('control.noneTicked')}</p>
      {choices.map(([choice, text]) => (
        <label className="check" key={choice}>
          <input
            type="checkbox"
            checked={value.includes(choice)}
            onChange={(event) =>
              onChange(
                event.target.checked
                  ? choices.map(([each]) => each).filter((each) => each === choice || value.includes(each))
                  : value.filter((chosen) => chosen !== choice),
              )
            }
          />
          {words(text)}
        </label>
      ))}
      {error && (
        <p className="error" id={`${name}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** An instant as the wall time of `timeZone`, as a datetime-local input writes it (YYYY-MM-DDTHH:mm). */
export function wallTime(iso: string | undefined, timeZone: string): string {
  if (iso === undefined) return '';
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  for (const part of format.formatToParts(new Date(iso))) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** A site list as typed: ids and domains separated by commas, spaces or lines. */
export function siteList(text: string): (number | string)[] {
  return text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => (/^\d+$/.test(entry) ? Number(entry) : entry));
}
