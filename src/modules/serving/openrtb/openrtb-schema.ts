import { Type } from '@sinclair/typebox';

/**
 * The part of an OpenRTB 2.6 bid request Nativa reads, as the route's body schema. OpenRTB objects
 * are extensible (`ext`, and fields of later versions): every object admits properties it does not
 * name. Only what Nativa reads is typed, and only as OpenRTB types it (ids are strings).
 */

const Flag = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description }));
const Texts = (description: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 1000, description }));

const NativeImp = Type.Object(
  {
    request: Type.Union([Type.String({ maxLength: 65_536 }), Type.Object({})], {
      description: 'The Native 1.2 request (its `assets`), as a JSON string (OpenRTB) or the object itself.',
    }),
    ver: Type.Optional(Type.String({ maxLength: 16, description: 'Native version; 1.2 is read.' })),
  },
  { description: 'A native impression.' },
);

const Imp = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'The impression id, echoed as the bid’s `impid`.' }),
    tagid: Type.Optional(Type.String({ maxLength: 64, description: 'The Nativa block id.' })),
    bidfloor: Type.Optional(Type.Number({ minimum: 0, description: 'The lowest CPM accepted, in the platform currency.' })),
    bidfloorcur: Type.Optional(Type.String({ maxLength: 3, description: 'Currency of `bidfloor` (ISO 4217).' })),
    native: Type.Optional(NativeImp),
    ext: Type.Optional(
      Type.Object({
        siteId: Type.Optional(
          Type.Integer({ minimum: 1, description: 'The Nativa site of the block (the Prebid adapter’s `siteId`).' }),
        ),
      }),
    ),
  },
  { description: 'An impression; only native impressions get bids.' },
);

const Site = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 64 })),
    domain: Type.Optional(Type.String({ maxLength: 1024 })),
    page: Type.Optional(Type.String({ maxLength: 4096 })),
    publisher: Type.Optional(
      Type.Object({ id: Type.Optional(Type.String({ maxLength: 64, description: 'The Nativa publisher account id.' })) }),
    ),
  },
  {
    description:
      'The site. When `publisher.id` is given, it is the Nativa publisher account that must own each block `imp.tagid`.',
  },
);

const Device = Type.Object(
  {
    ua: Type.Optional(Type.String({ maxLength: 2048, description: 'User-Agent: device type, robots.' })),
    ip: Type.Optional(Type.String({ maxLength: 64, description: 'IPv4 address: the country.' })),
    ipv6: Type.Optional(Type.String({ maxLength: 64, description: 'IPv6 address: the country.' })),
    geo: Type.Optional(Type.Object({ country: Type.Optional(Type.String({ maxLength: 3 })) })),
  },
  { description: 'The device.' },
);

const Regs = Type.Object(
  {
    coppa: Flag('1: the audience is children (COPPA): Nativa does not bid.'),
    gdpr: Flag('1: GDPR applies.'),
    us_privacy: Type.Optional(Type.String({ maxLength: 16, description: 'CCPA string.' })),
    gpp: Type.Optional(Type.String({ maxLength: 65_536, description: 'Global Privacy Platform string.' })),
    gpp_sid: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 1000 }), { maxItems: 100 })),
  },
  { description: 'Regulations in force for this request.' },
);

export const BidRequestSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, description: 'The bid request id, echoed in the response.' }),
    imp: Type.Array(Imp, { minItems: 1, maxItems: 50, description: 'Impressions offered.' }),
    site: Type.Optional(Site),
    device: Type.Optional(Device),
    user: Type.Optional(Type.Object({ consent: Type.Optional(Type.String({ maxLength: 65_536 })) })),
    regs: Type.Optional(Regs),
    cur: Texts('Currencies the exchange accepts; Nativa bids only in the platform currency.'),
    bcat: Texts(
      'Blocked advertiser categories (IAB Content Taxonomy 1.0 unless `cattax` says otherwise): ads of those categories are left out.',
    ),
    acat: Texts('Allowed advertiser categories: only ads all of whose categories fall within them.'),
    cattax: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1000,
        description: 'Taxonomy of `bcat` and `acat` (default 1, IAB Content Taxonomy 1.0, the one Nativa maps to).',
      }),
    ),
    badv: Texts('Blocked advertiser domains.'),
    test: Flag('1: a test request (answered as usual).'),
    tmax: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  },
  { description: 'An OpenRTB 2.6 bid request with native impressions.' },
);

const Bid = Type.Object({
  id: Type.String({ description: 'Bid id: the request id and the impression id.' }),
  impid: Type.String({ description: 'The impression it is for.' }),
  price: Type.Number({ description: 'CPM in `cur`: the ad’s bid per click × its smoothed CTR × 1000, to 4 decimals.' }),
  adm: Type.String({
    description:
      'The Native 1.2 response as a JSON string: assets, `link.url` the click link (`/api/openrtb2/click/{token}`), `imptrackers` and `eventtrackers` (viewable, image) the view pixel. The click is billed and the view counted only once the bid has won.',
  }),
  nurl: Type.String({
    description: `Win notice (\`GET /api/openrtb2/notice?token=…&event=win&price=\${AUCTION_PRICE}\`): counts the bid served. Either notice does; the second counts nothing more.`,
  }),
  burl: Type.String({
    description: `Billing notice (\`…?event=billing&price=\${AUCTION_PRICE}\`), for exchanges and wrappers that call it when the ad renders. Charges nothing: Nativa bills the click.`,
  }),
  adomain: Type.Array(Type.String(), { description: 'The advertiser’s domain.' }),
  cat: Type.Optional(
    Type.Array(Type.String(), {
      description: 'The ad’s IAB Content Taxonomy 1.0 codes (from its Nativa category); absent when its category has none.',
    }),
  ),
  cattax: Type.Optional(Type.Integer({ description: 'Taxonomy of `cat`: 1, IAB Content Taxonomy 1.0.' })),
  crid: Type.String({ description: 'Creative id: the Nativa ad id.' }),
  cid: Type.String({ description: 'Campaign id.' }),
  mtype: Type.Integer({ description: 'Markup type: 4, native.' }),
  exp: Type.Integer({ description: 'Seconds the bid may wait for its win: its tokens’ lifetime.' }),
});

export const BidResponseSchema = Type.Object(
  {
    id: Type.String({ description: 'The bid request’s id.' }),
    cur: Type.Optional(Type.String({ description: 'The platform currency (ISO 4217).' })),
    seatbid: Type.Optional(
      Type.Array(
        Type.Object({
          seat: Type.String({ description: 'The advertiser account id: one seat per advertiser.' }),
          bid: Type.Array(Bid),
        }),
        { description: 'The bids, one seat per advertiser; absent with `nbr`.' },
      ),
    ),
    nbr: Type.Optional(
      Type.Integer({
        description:
          'Why there is no bid, when Nativa says (otherwise a no-bid is a 204): 3, a known web crawler (`device.ua`); 501 (Nativa’s own), no native impression: Nativa bids on native impressions only.',
      }),
    ),
  },
  { description: 'An OpenRTB 2.6 bid response: bids, or a reason for none (`nbr`).' },
);
