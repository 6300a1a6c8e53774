import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { SitesTable } from '../../../db/schema.ts';
import { LastRejectionSchema } from '../../moderation/index.ts';
import { publisherFigureFields } from '../../statistics/index.ts';
import { BlockSchema } from '../blocks/block-schema.ts';

export type SiteRow = Selectable<SitesTable>;

/**
 * Site statuses; the index is the code the API's `status` filter and the operator use, as the
 * platform codes them (docs/decisions.md, Publishers).
 */
export const SITE_STATUSES = ['moderation', 'active', 'banned', 'unconfirmed'] as const;
export type SiteStatusName = (typeof SITE_STATUSES)[number];

/** Each site status's code by name. */
export const SITE_STATUS = Object.fromEntries(SITE_STATUSES.map((name, code) => [name, code])) as Record<SiteStatusName, number>;

export const siteStatusName = (code: number): SiteStatusName => SITE_STATUSES[code] ?? 'moderation';

export const StatusCode = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 3, description: `${description} 0 moderation, 1 active, 2 banned, 3 unconfirmed.` });

export const CategorySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Category id.' }),
    parent_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Parent category id; null for a root category.' }),
    title: Type.String({ description: 'Title.' }),
  },
  { description: 'A site category.' },
);

const websiteFields = {
  id: Type.Integer({ description: 'Site id.' }),
  status: Type.Union(
    SITE_STATUSES.map((status) => Type.Literal(status)),
    { description: 'Status: moderation, active, banned or unconfirmed.' },
  ),
  url: Type.String({ description: 'Site address.' }),
  category_id: Type.String({ description: 'Category id (a site category).' }),
  monthly_uniq_users: Type.String({ description: 'Monthly unique visitors, as the publisher declared them.' }),
  blocks_count: Type.Integer({ description: 'Number of blocks.' }),
  refusedCategories: Type.Optional(
    Type.Array(Type.Integer(), {
      description: 'Product categories the site refuses (brand safety); present only when set (extension).',
    }),
  ),
  domains: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "Further domains the site's blocks serve on, each with its subdomains, besides the domain of `url` and its subdomains; a block asked from a page elsewhere answers no teasers and its clicks are not billed (docs/invalid-traffic.md); present only when set (extension).",
    }),
  ),
  moderationReason: Type.Optional(
    Type.String({ description: 'Why the site was banned, in the operator’s words; present until it is approved (extension).' }),
  ),
  ...publisherFigureFields,
};

export const WebsiteSchema = Type.Object(
  {
    ...websiteFields,
    blocks: Type.Optional(Type.Array(BlockSchema, { description: 'The blocks of the site (with `expand=blocks`).' })),
  },
  { description: 'A publisher site with its statistics for the requested period.' },
);

/** The operator's view of a site: the Website and its owner. */
export const AdminWebsiteSchema = Type.Object(
  {
    ...websiteFields,
    userId: Type.Integer({ description: 'The publisher account that owns the site.' }),
    userName: Type.String({ description: 'The owning publisher’s name (its login when it has none).' }),
    sameHostSites: Type.Array(Type.Integer({ description: 'A site id.' }), {
      description:
        'Sites of other publisher accounts with the same host (letter case, `www.` and port ignored), oldest first: two accounts may submit one domain, and the operator decides which owns it (its ads.txt check helps). Empty when none.',
    }),
    lastRejection: LastRejectionSchema,
  },
  { description: 'A site as the operator sees it: the Website fields (lifetime statistics) and its owner.' },
);
