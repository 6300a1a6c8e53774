import type { AdEntry } from '../snapshot/snapshot.ts';

/**
 * Nativa's product categories in the IAB Tech Lab Content Taxonomy 1.0 (OpenRTB `cattax` 1, the
 * default of `bcat`, `acat` and a bid's `cat`), for the categories Nativa ships (their ids are fixed
 * by the seed migration so that clients can refer to them). Each category names the most specific
 * codes that fit; a root category names tier-1 codes. A category an operator adds later has none:
 * its ads carry no `cat`, and a request that restricts categories gets no bid with them (ADR 0044).
 */
const IAB_CT1_OF_CATEGORY: ReadonlyMap<number, readonly string[]> = new Map<number, readonly string[]>([
  // Clothing & Shoes: Style & Fashion.
  [1, ['IAB18']],
  [101, ['IAB18-5']],
  [102, ['IAB18-5']],
  [103, ['IAB18-3']],
  [104, ['IAB18-6']],
  [105, ['IAB18-4']],
  // Electronics: Technology & Computing.
  [2, ['IAB19']],
  [201, ['IAB19-6']],
  [202, ['IAB19-28']],
  [203, ['IAB19-22']],
  [204, ['IAB19-17', 'IAB10-6']],
  [205, ['IAB10-1', 'IAB19-18']],
  [206, ['IAB19-5']],
  // Home & Garden.
  [3, ['IAB10']],
  [301, ['IAB10-7']],
  [302, ['IAB10-1']],
  [303, ['IAB10-4']],
  [304, ['IAB10-5']],
  [305, ['IAB10-7']],
  // Health & Beauty: Health & Fitness, and Style & Fashion's Beauty.
  [4, ['IAB7', 'IAB18-1']],
  [401, ['IAB18-1']],
  [402, ['IAB18-1']],
  [403, ['IAB18-1']],
  [404, ['IAB7-32']],
  [405, ['IAB7']],
  // Sports & Outdoors.
  [5, ['IAB17']],
  [501, ['IAB7-1']],
  [502, ['IAB17-3']],
  [503, ['IAB20-9']],
  [504, ['IAB17']],
  [505, ['IAB17-31', 'IAB17-33', 'IAB17-37', 'IAB17-38', 'IAB17-43']],
  // Kids & Toys: Family & Parenting.
  [6, ['IAB6']],
  [601, ['IAB6']],
  [602, ['IAB6-2']],
  [603, ['IAB6-5', 'IAB18-5']],
  [604, ['IAB5']],
  // Auto & Moto: Automotive.
  [7, ['IAB2']],
  [701, ['IAB2-3']],
  [702, ['IAB2-1']],
  [703, ['IAB2-15']],
  [704, ['IAB2-1']],
  // Food & Drink.
  [8, ['IAB8']],
  [801, ['IAB8']],
  [802, ['IAB8-9']],
  [803, ['IAB8-5', 'IAB8-18']],
  [804, ['IAB8-6']],
  // Finance & Insurance: Personal Finance.
  [9, ['IAB13']],
  [901, ['IAB13-2']],
  [902, ['IAB13-2']],
  [903, ['IAB13-6']],
  [904, ['IAB13-7']],
  // Travel.
  [10, ['IAB20']],
  [1001, ['IAB20-3']],
  [1002, ['IAB20-18']],
  [1003, ['IAB20']],
  [1004, ['IAB20']],
  // Education.
  [11, ['IAB5']],
  [1101, ['IAB5-6']],
  [1102, ['IAB5-8']],
  [1103, ['IAB1-1']],
  // Games & Entertainment: Arts & Entertainment, Hobbies & Interests.
  [12, ['IAB1', 'IAB9']],
  [1201, ['IAB9-30']],
  [1202, ['IAB9-5']],
  [1203, ['IAB1-5', 'IAB1-7']],
  [1204, ['IAB1-6']],
]);

/** OpenRTB's `cattax` of IAB Tech Lab Content Taxonomy 1.0, the only one Nativa maps to. */
export const CATTAX_IAB_CT1 = 1;

/**
 * An ad's IAB codes: those of its own sub-category when it has a mapped one, else those of its
 * campaign's category; none when neither is mapped.
 */
export function iabCategoriesOf(ad: AdEntry): readonly string[] {
  const own = ad.subCategoryId == null ? undefined : IAB_CT1_OF_CATEGORY.get(ad.subCategoryId);
  if (own !== undefined) return own;
  const campaign = ad.campaign.categoryId;
  return (campaign == null ? undefined : IAB_CT1_OF_CATEGORY.get(campaign)) ?? [];
}

/** `IAB19-6` → `IAB19`; a tier-1 code is its own tier. */
function tierOneOf(code: string): string {
  const dash = code.indexOf('-');
  return dash === -1 ? code : code.slice(0, dash);
}

/**
 * Whether two codes may name the same content: equal, or one a tier-1 code and the other one of
 * its sub-codes. Both directions count: a blocked `IAB19` covers `IAB19-6`, and an ad known only as
 * `IAB19` cannot be shown to be outside a blocked `IAB19-6`.
 */
function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const aIsTier = !a.includes('-');
  const bIsTier = !b.includes('-');
  return (aIsTier && tierOneOf(b) === a) || (bIsTier && tierOneOf(a) === b);
}

/** What a request allows of categories, read once for all its impressions. */
export interface CategoryRules {
  /** Blocked codes (`bcat`), upper-cased; empty: none. */
  blocked: readonly string[];
  /** Allowed codes (`acat`); undefined: any. */
  allowed: readonly string[] | undefined;
  /** The request restricts categories in a taxonomy Nativa does not map: no ad can be shown to pass. */
  unreadable: boolean;
}

export function categoryRulesOf(request: { bcat?: string[]; acat?: string[]; cattax?: number }): CategoryRules {
  const normalise = (codes: readonly string[] | undefined) =>
    (codes ?? []).map((code) => code.trim().toUpperCase()).filter((code) => code !== '');
  const blocked = normalise(request.bcat);
  const allowed = request.acat === undefined ? undefined : normalise(request.acat);
  const restricts = blocked.length > 0 || allowed !== undefined;
  return { blocked, allowed, unreadable: restricts && (request.cattax ?? CATTAX_IAB_CT1) !== CATTAX_IAB_CT1 };
}

/**
 * Whether an ad with these IAB codes may answer a request with these rules. Under a restriction,
 * an ad without codes is refused (it cannot be shown to be outside a blocked category); a blocked
 * code refuses an ad any of whose codes overlaps it; an allow list takes an ad all of whose codes
 * fall within an allowed code.
 */
export function categoriesAllowed(codes: readonly string[], rules: CategoryRules): boolean {
  if (rules.blocked.length === 0 && rules.allowed === undefined) return true;
  if (rules.unreadable || codes.length === 0) return false;
  if (codes.some((code) => rules.blocked.some((blocked) => overlaps(code, blocked)))) return false;
  const { allowed } = rules;
  if (allowed === undefined) return true;
  return codes.every((code) => allowed.some((entry) => entry === code || (!entry.includes('-') && tierOneOf(code) === entry)));
}
