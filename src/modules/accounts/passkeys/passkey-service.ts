import type { AuthenticationResponseJSON, RegistrationResponseJSON, VerifiedRegistrationResponse } from '@simplewebauthn/server';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { DomainError, invalidField, notFound } from '../../../errors.ts';
import type { Actor } from '../../../shared/actor.ts';
import { recordAudit } from '../../audit/index.ts';
import type { TicketPurpose } from '../account-keys.ts';
import { getAccount } from '../account-service.ts';
import { openSession, type SessionDependencies, type SignedIn, type SignInClient } from '../sessions/session-service.ts';
import { spendTicket, tooManyAttempts } from '../two-factor/two-factor-service.ts';
import {
  deletePasskey,
  findPasskeyByCredential,
  insertPasskey,
  listAccountPasskeys,
  markPasskeyUsed,
} from './passkey-repository.ts';

/**
 * The WebAuthn library and its ASN.1 and X.509 dependencies (~2 MB resident) are loaded at the first
 * passkey ceremony, not at start (docs/performance.md, "Idle memory").
 */
const webAuthn = () => import('@simplewebauthn/server');

/** Who the passkeys are for: the public origin, and its host as the WebAuthn RP ID. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/**
 * Ed25519, P-256 and RSA, what authenticators make. Naming them spares the library's probe of
 * post-quantum keys (ML-DSA), which Node answers with an experimental-feature warning on stderr.
 */
const KEY_ALGORITHMS = [-8, -7, -257];

/** How long the browser has to answer a WebAuthn ceremony. */
const CEREMONY_TTL_MS = 5 * 60_000;

/** The user handle an authenticator keeps with a passkey: the account, nothing personal. */
const userHandleOf = (accountId: number) => new TextEncoder().encode(`nativa-account-${accountId}`);

/**
 * A challenge that is a signed ticket (the WebAuthn challenge carries it as UTF-8), so asking for
 * options stores nothing; its text, when the signature, purpose and time hold.
 */
function ticketChallenge(dependencies: SessionDependencies, purpose: TicketPurpose, accountId: number): string {
  const expiresAtMs = dependencies.clock.now() + CEREMONY_TTL_MS;
  return dependencies.keys.signTicket({ purpose, accountId, expiresAtMs });
}

function readChallenge(dependencies: SessionDependencies, challenge: string, purpose: TicketPurpose) {
  const text = Buffer.from(challenge, 'base64url').toString('utf8');
  const ticket = dependencies.keys.readTicket(text, purpose, dependencies.clock.now());
  return ticket === undefined ? undefined : { text, ticket };
}

/** The challenge's base64url text as the browser echoes it, read from the credential's client data. */
function challengeOf(clientDataJSON: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (parsed as { challenge?: unknown }).challenge;
    return typeof challenge === 'string' ? challenge : '';
  } catch {
    return '';
  }
}

export async function registrationOptions(
  dependencies: SessionDependencies,
  rp: RelyingParty,
  account: { id: number; username: string; email: string },
) {
  const existing = await listAccountPasskeys(dependencies.db, account.id);
  const { generateRegistrationOptions } = await webAuthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.username,
    userDisplayName: account.email,
    userID: userHandleOf(account.id),
    challenge: ticketChallenge(dependencies, 'passkey-registration', account.id),
    timeout: CEREMONY_TTL_MS,
    attestationType: 'none',
    supportedAlgorithmIDs: KEY_ALGORITHMS,
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

const refusedRegistration = () =>
  invalidField('credential', 'The authenticator’s answer does not check out for this server. Try again.');

/** Verifies the authenticator's answer to the registration options and keeps the passkey; audited. */
export async function registerPasskey(
  dependencies: SessionDependencies,
  rp: RelyingParty,
  actor: Actor,
  accountId: number,
  input: { name: string; credential: RegistrationResponseJSON },
) {
  const challenge = readChallenge(dependencies, challengeOf(input.credential.response.clientDataJSON), 'passkey-registration');
  if (challenge === undefined || challenge.ticket.accountId !== accountId) throw refusedRegistration();
  const { verifyRegistrationResponse } = await webAuthn();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: () => true,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: KEY_ALGORITHMS,
    });
  } catch {
    throw refusedRegistration();
  }
  if (!verified.verified) throw refusedRegistration();
  const { credential, credentialBackedUp } = verified.registrationInfo;
  const now = new Date(dependencies.clock.now());
  return inTransaction(dependencies.db, async (trx) => {
    if (!(await spendTicket(trx, challenge.text, challenge.ticket.expiresAtMs, now))) throw refusedRegistration();
    const row = await insertPasskey(trx, {
      accountId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: input.name.trim(),
      backedUp: credentialBackedUp,
      now,
    });
    if (row === undefined) throw new DomainError('passkey_exists', 'This passkey is already registered.');
    await recordAudit(
      trx,
      actor,
      { action: 'passkey.add', objectType: 'passkey', objectId: row.id, after: { name: row.name } },
      now,
    );
    return row;
  });
}

/** Options for a sign-in with any passkey of this server (discoverable credentials: no login typed). */
export async function signInOptions(dependencies: SessionDependencies, rp: RelyingParty) {
  const { generateAuthenticationOptions } = await webAuthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: ticketChallenge(dependencies, 'passkey-sign-in', 0),
    timeout: CEREMONY_TTL_MS,
    userVerification: 'required',
  });
}

const refusedSignIn = () =>
  new DomainError('passkey_refused', 'This passkey was not accepted. Use another one, or your password.');

/**
 * Signs in with a passkey: the credential must be one of ours, its answer signed over our
 * challenge, origin and RP ID with user verification. Failures count against the sign-in throttle
 * (per account when the credential is known, and per address).
 */
export async function signInWithPasskey(
  dependencies: SessionDependencies,
  rp: RelyingParty,
  credential: AuthenticationResponseJSON,
  client: SignInClient,
): Promise<SignedIn> {
  const { db, clock, throttle } = dependencies;
  const passkey = await findPasskeyByCredential(db, credential.id.slice(0, 1400));
  const accountKey = passkey === undefined ? `passkey:${credential.id.slice(0, 200)}` : String(passkey.account_id);
  const attempt = await throttle.attempt(accountKey, client.address);
  if (attempt.refused) throw tooManyAttempts(attempt.retryAfterSeconds);
  const challenge = readChallenge(dependencies, challengeOf(credential.response.clientDataJSON), 'passkey-sign-in');
  const verified = passkey === undefined || challenge === undefined ? undefined : await verifyAssertion(rp, credential, passkey);
  const handle = credential.response.userHandle;
  const handleMatches =
    passkey !== undefined &&
    (handle === undefined || Buffer.from(handle, 'base64url').equals(Buffer.from(userHandleOf(passkey.account_id))));
  if (passkey === undefined || challenge === undefined || verified === undefined || !handleMatches) throw refusedSignIn();
  await attempt.succeeded();
  const now = new Date(clock.now());
  return inTransaction(db, async (trx) => {
    if (!(await spendTicket(trx, challenge.text, challenge.ticket.expiresAtMs, now))) throw refusedSignIn();
    await markPasskeyUsed(trx, passkey.id, verified.newCounter, now);
    const account = await getAccount(trx, passkey.account_id);
    return openSession(trx, dependencies, account, 'passkey', client);
  });
}

async function verifyAssertion(
  rp: RelyingParty,
  credential: AuthenticationResponseJSON,
  passkey: { credential_id: string; public_key: Buffer; counter: number; transports: string[] },
): Promise<{ newCounter: number } | undefined> {
  const { verifyAuthenticationResponse } = await webAuthn();
  try {
    const result = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: () => true,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports,
      },
    });
    return result.verified ? { newCounter: result.authenticationInfo.newCounter } : undefined;
  } catch {
    return undefined;
  }
}

export async function listPasskeys(db: Db, accountId: number) {
  return listAccountPasskeys(db, accountId);
}

export async function removePasskey(db: Db, actor: Actor, accountId: number, id: number, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    const deleted = await deletePasskey(trx, accountId, id);
    if (deleted === undefined) throw notFound('Passkey');
    await recordAudit(
      trx,
      actor,
      { action: 'passkey.remove', objectType: 'passkey', objectId: id, before: { name: deleted.name } },
      now,
    );
  });
}
