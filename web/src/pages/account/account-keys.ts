/** Query keys of the account pages (web/src/query-keys.ts says how keys are built). */
export const accountKeys = {
  tokens: () => ['tokens'] as const,
  passkeys: () => ['passkeys'] as const,
  sessions: () => ['sessions'] as const,
};
