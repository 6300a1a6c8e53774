/** Who did something, as the audit trail records it: a request's caller, or the system itself. */
export interface Actor {
  /** The account; null for the system's own work (click settlement). */
  accountId: number | null;
  kind: string;
  /** The API token used, when there was one. */
  tokenId: number | null;
  /** The browser session used, when there was one. */
  sessionId: number | null;
  remoteAddress: string;
  requestId: string;
}
