import { useTranslation } from 'react-i18next';
import { currentPlatform, money } from '../format.ts';

/**
 * The network's minimum payout beside a publisher's balance (MIN_PAYOUT): how far the balance is
 * from being paid out. Nothing when the network has no minimum.
 */
export function PayoutThreshold({ balance }: { balance: number }) {
  const { t } = useTranslation();
  const minimum = currentPlatform().minPayout ?? 0;
  if (minimum <= 0) return null;
  const reached = balance >= minimum;
  return (
    <span className="payout-threshold" title={t('payoutThreshold.title')}>
      {reached ? t('payoutThreshold.reached', { amount: money(minimum) }) : t('payoutThreshold.from', { amount: money(minimum) })}
    </span>
  );
}
