import { TwoFactorSection } from './two-factor.tsx';

/** What an account that must have two-factor sign-in sees until it has: the enrolment, before anything else. */
export function EnrolmentRequiredPage() {
  return (
    <>
      <div className="page-head">
        <h1>Turn on two-factor sign-in</h1>
      </div>
      <p className="lead">
        Your account must have two-factor sign-in before anything else. You will need an authenticator app on your phone.
      </p>
      <TwoFactorSection holdCodes />
    </>
  );
}
