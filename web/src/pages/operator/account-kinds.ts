/** An account's kind as its tag reads, on the list of accounts and on an account's page. */
export const KIND_TAGS = {
  advertiser: 'kind.advertiser',
  publisher: 'kind.publisher',
  operator: 'kind.operator',
} as const;
