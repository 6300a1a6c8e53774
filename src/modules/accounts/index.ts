/**
 * What other modules use of accounts: whether an operator exists, balances as a transaction sees
 * them (balance webhooks), names and mailboxes (moderation notices, owners in lists), and confirming an e-mail address (mail's confirmation links). An
 * account's balance is moved only by the ledger (src/modules/ledger), in its own statements.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { accountContacts, confirmAccountEmail, operatorExists } from './account-repository.ts';
