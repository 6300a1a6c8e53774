/**
 * The figures an advertiser's campaign, ad or site row shows before any traffic: every counter
 * and every rate derived from them is zero (a rate over zero views is 0, not NaN).
 */
export const NO_ADVERTISER_TRAFFIC = {
  views: 0,
  clicks: 0,
  money: 0,
  orders: 0,
  authenticatedOrders: 0,
  pixelOrders: 0,
  cpm: 0,
  cpo: 0,
  cr: 0,
  cpc: 0,
  ctr: 0,
  served: 0,
  refundedClicks: 0,
  refundedSpend: 0,
  invalidClicks: 0,
  grossClicks: 0,
  netClicks: 0,
  netSpend: 0,
} as const;

/** The figures a publisher's site or block row shows before any traffic. */
export const NO_PUBLISHER_TRAFFIC = {
  views: 0,
  clicks: 0,
  ctr: 0,
  cpm: 0,
  money: 0,
  income: 0,
  served: 0,
  refundedClicks: 0,
  refundedIncome: 0,
  invalidClicks: 0,
  grossClicks: 0,
  netClicks: 0,
  netIncome: 0,
} as const;
