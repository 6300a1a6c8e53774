/**
 * The ledger: the one way a balance moves (with its entry, in the caller's transaction), the
 * balances a movement left, transfers between accounts and the ledger's lists.
 */
export {
  accountBalances,
  applyLedgerChange,
  findOrCreatePlatformAccount,
  insufficientFundsAsValidation,
  type LedgerChange,
  type LedgerPeriod,
  ledgerPeriod,
  ledgerPeriodParameters,
  listLedgerEntries,
  postLedgerChanges,
  transfer,
} from './ledger.ts';
