import { Link } from '../../router.tsx';

/** What an address the app does not have shows, and a page of another kind of account. */
export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <p>
        <Link href="/">Go to the start page</Link>
      </p>
    </>
  );
}
