import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { BlocksTable } from '../../../db/schema.ts';
import { microsToAmount } from '../../../money.ts';
import { BlockDesignSchema, readDesign } from './block-design.ts';
import { embedCode } from './embed-code.ts';

export type BlockRow = Selectable<BlocksTable>;

export const MIN_TEASERS = 1;
export const MAX_TEASERS = 20;

export const BlockSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Block id.' }),
    bn: Type.String({ description: 'Block code: the HTML embed code to paste into a page of the site.' }),
    title: Type.String({ description: 'Block header.' }),
    siteid: Type.String({ description: 'Id of the site the block belongs to.' }),
    count: Type.Integer({ description: `How many teasers the block shows at once (${MIN_TEASERS}-${MAX_TEASERS}).` }),
    noCampaignRepeats: Type.Optional(
      Type.Boolean({
        description:
          'true: the block shows at most one ad per campaign, and none of a campaign another block of the same page view showed; present only when true (extension).',
      }),
    ),
    minCpc: Type.Optional(
      Type.Number({
        description:
          'Minimum price of a click on the block, currency units: ads whose bid × coefficients is lower do not compete, and no click costs less (an auction floor); present only when set (extension).',
      }),
    ),
    design: Type.Optional(
      Type.Object(BlockDesignSchema.properties, {
        description:
          'The block’s design, applied by the embed script; present only when set (extension). With a design the embed code reserves the block’s height.',
      }),
    ),
  },
  { description: 'An ad block (informer) of a site.' },
);

export type Block = Static<typeof BlockSchema>;

export function toBlock(row: BlockRow, baseUrl: string): Block {
  const design = readDesign(row.design);
  return {
    id: row.id,
    bn: embedCode(baseUrl, row.id, design),
    title: row.title,
    siteid: String(row.site_id),
    count: row.teaser_count,
    ...(row.no_campaign_repeats ? { noCampaignRepeats: true } : {}),
    ...(Number(row.min_cpc_micros) > 0 ? { minCpc: microsToAmount(Number(row.min_cpc_micros)) } : {}),
    ...(design === undefined ? {} : { design }),
  };
}
