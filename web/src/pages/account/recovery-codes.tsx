import { Notice } from '../../components/controls.tsx';

/** Recovery codes as the API shows them: once, so the page says to keep them now. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <Notice kind="ok">
      <p>
        Your recovery codes. Each signs in once in place of a code from the app. Keep them somewhere safe now: they are not shown
        again.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
    </Notice>
  );
}
