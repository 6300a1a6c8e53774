import { PasskeysSection } from './passkeys.tsx';
import { SessionsSection } from './sessions.tsx';
import { TwoFactorSection } from './two-factor.tsx';

/**
 * The account page's sign-in settings, a chunk of their own (the QR code and the WebAuthn
 * client are needed on this page only).
 */
export function SecuritySections() {
  return (
    <>
      <TwoFactorSection />
      <PasskeysSection />
      <SessionsSection />
    </>
  );
}
