import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A read-only text to paste elsewhere, with a button that copies it and says so. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const id = `copy-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // No clipboard permission (an old browser, an insecure frame): select it for Ctrl+C instead.
      field.current?.select();
      setCopied(false);
    }
  };
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <textarea
          id={id}
          ref={field}
          readOnly
          rows={2}
          value={value}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={copy} onBlur={() => setCopied(false)}>
          {t('copy.button')}
          <span className="visually-hidden"> {label}</span>
        </button>
      </div>
      <span className="copy-state" role="status">
        {copied ? t('copy.done') : ''}
      </span>
    </div>
  );
}
