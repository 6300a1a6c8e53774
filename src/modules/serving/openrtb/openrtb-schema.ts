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
    bcat: Texts('Blocked IAB content categories.'),
    badv: Texts('Blocked advertiser domains.'),
    test: Flag('1: a test request (answered as usual).'),
    tmax: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  },
  { description: 'An OpenRTB 2.6 bid request with native impressions.' },
);

const Bid = Type.Object({
  id: Type.String({ description: 'Bid id.' }),
  impid: Type.String({ description: 'The impression it is for.' }),
  price: Type.Number({ description: 'CPM in `cur`: the ad’s bid per click × its smoothed CTR × 1000.' }),
  adm: Type.String({
    description:
      'The Native 1.2 response as a JSON string: assets, `link.url` the signed click link, `imptrackers` and `eventtrackers` (viewable, image) the view pixel.',
  }),
  adomain: Type.Array(Type.String(), { description: 'The advertiser’s domain.' }),
  crid: Type.String({ description: 'Creative id: the Nativa ad id.' }),
  cid: Type.String({ description: 'Campaign id.' }),
});

export const BidResponseSchema = Type.Object(
  {
    id: Type.String({ description: 'The bid request’s id.' }),
    cur: Type.String({ description: 'The platform currency (ISO 4217).' }),
    seatbid: Type.Array(
      Type.Object({
        seat: Type.String({ description: 'The advertiser account id: one seat per advertiser.' }),
        bid: Type.Array(Bid),
      }),
    ),
  },
  { description: 'An OpenRTB 2.6 bid response.' },
);
