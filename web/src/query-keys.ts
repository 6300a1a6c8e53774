/**
 * Query keys of what any page may show: the signed-in account, the platform, two-factor sign-in
 * and notifications. Each area of pages keeps its own keys beside its pages (`advertiser-keys.ts`,
 * `publisher-keys.ts`, `operator-keys.ts`, `account-keys.ts`, `webhook-keys.ts`), so no page writes
 * a key by hand. A key begins with the key of what it belongs to: invalidating the shorter one
 * (`all`, or a key of one object) refreshes every query under it.
 */
const notifications = ['notifications'] as const;

export const appKeys = {
  me: () => ['me'] as const,
  platform: () => ['platform'] as const,
  twoFactor: () => ['two-factor'] as const,
  notifications: {
    /** The list and the header's unread count together. */
    all: () => notifications,
    summary: () => [...notifications, 'summary'] as const,
    list: (unreadOnly: boolean, page: number) => [...notifications, 'list', unreadOnly, page] as const,
  },
};
