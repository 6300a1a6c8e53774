/**
 * What other modules use of accounts: creating and reading accounts and their schemas (clients,
 * referrals, the operator's list), names and mailboxes (moderation notices, owners in lists),
 * confirming a mailbox (handed to mail's confirmation link by app.ts), invitation and password
 * links, and what the server builds at start (token and session authentication, sign-in throttles,
 * account keys). An account's balance is moved only by the ledger (src/modules/ledger).
 */
export { AccountKeys } from './account-keys.ts';
export { accountListOrder, accountListParameters } from './account-list.ts';
export { accountContacts, confirmAccountEmail, operatorExists } from './account-repository.ts';
export {
  type AccountRow,
  createAccount,
  findAccount,
  getAccount,
  getReferral,
  identityFieldErrors,
  issueToken,
  listAccountsPage,
} from './account-service.ts';
export { answerInvitationLink, INVITATION_LINK_DESCRIPTION, InvitationLinkSchema } from './invitation-link.ts';
export { authenticateSession, createPasswordToken, SET_PASSWORD_PATH, sessionPolicyOf } from './sessions/session-service.ts';
export { memoryFailureCounter, ResetThrottle, redisFailureCounter, SignInThrottle } from './sessions/sign-in-throttle.ts';
export { TOKEN_CHANGES_POLL_MS, TokenAuthenticator } from './tokens.ts';
export { toUser, UserSchema } from './user-schema.ts';
