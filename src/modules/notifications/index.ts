/**
 * What other modules use of notifications: writing them in the transaction of the event that
 * causes them (docs/adr/0039-notifications-written-with-their-cause.md).
 */
export {
  type MovedBalance,
  type NotificationKind,
  notify,
  notifyInTheirLanguage,
  notifyLowBalances,
} from './notification-service.ts';
