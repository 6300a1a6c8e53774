import type { AccountKind } from '../db/schema.ts';

/** The account behind a request's token or browser session. */
export interface Principal {
  accountId: number;
  kind: AccountKind;
  /** The API token used; 0 when the request came with a session instead. */
  tokenId: number;
  /** The browser session used, when there is one. */
  sessionId?: number;
  /**
   * The session's account must have two-factor sign-in (REQUIRE_2FA_FOR) and has not: only the
   * routes marked `duringEnrolment` answer it, until it enrols.
   */
  mustEnrol?: boolean;
}

/** A browser session's secret and how long its cookie is to be kept; the HTTP layer writes the cookie. */
export interface SessionCookie {
  secret: string;
  maxAgeSeconds: number;
}

/** A session the cookie named, and its cookie to send again when its expiry moved. */
export interface SessionAuthentication {
  principal: Principal;
  renewed?: SessionCookie;
}
