import { Link } from '../../router.tsx';
import { WebhooksPage } from '../webhooks/webhooks-page.tsx';
import { AccountPage } from './account.tsx';
import { AccountsPage } from './accounts.tsx';
import { ModerationPage } from './moderation.tsx';
import { OutboxMessagePage, OutboxPage } from './outbox.tsx';
import { PayoutsPage } from './payouts.tsx';
import './operator.css';

/**
 * The operator's pages, loaded as their own chunk only when an operator opens one: advertisers
 * and publishers never download them, and the first page stays within its budget.
 */
export function OperatorPages({ path }: { path: string }) {
  if (path === '/operator') return <ModerationPage />;
  if (path === '/operator/accounts') return <AccountsPage />;
  const account = /^\/operator\/accounts\/(\d+)$/.exec(path);
  if (account) return <AccountPage id={Number(account[1])} />;
  if (path === '/operator/payouts') return <PayoutsPage />;
  if (path === '/operator/outbox') return <OutboxPage />;
  const message = /^\/operator\/outbox\/(\d+)$/.exec(path);
  if (message) return <OutboxMessagePage id={Number(message[1])} />;
  if (path === '/operator/webhooks') return <WebhooksPage kind="operator" />;
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link href="/operator">Back to moderation</Link>
      </p>
    </>
  );
}
