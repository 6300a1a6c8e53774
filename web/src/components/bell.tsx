import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data } from '../api.ts';
import { appKeys } from '../query-keys.ts';
import { Link } from '../router.tsx';

/** How often the bell looks for new notifications while the app is open. */
const REFRESH_MS = 60_000;

/** The unread notifications' count; the notifications page refreshes it when it marks some read. */
/** The header's bell: a link to the notifications with how many are unread. */
export function Bell({ current }: { current: boolean }) {
  const { t } = useTranslation();
  const summary = useQuery({
    queryKey: appKeys.notifications.summary(),
    queryFn: () => data(api.GET('/api/notifications/summary')),
    refetchInterval: REFRESH_MS,
  });
  const unread = summary.data?.unread ?? 0;
  const label = unread === 0 ? t('bell.noneUnread') : t('bell.unread', { count: unread });
  return (
    <Link href="/notifications" className="bell" aria-label={label} title={label} aria-current={current ? 'page' : undefined}>
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
        />
      </svg>
      {unread > 0 && (
        <span className="bell-count" data-testid="unread-count">
          {unread > 99 ? '99+' : unread}
        </span>
      )}
    </Link>
  );
}
