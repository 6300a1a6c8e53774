import { Type } from '@sinclair/typebox';
import { Text } from '../../../http/input-types.ts';
import { DEVICES } from '../../statistics/record-events.ts';

/**
 * The hypothetical impression an explanation describes, shared by the advertiser's and the
 * publisher's explain routes: device, country and (optionally) a visitor.
 */

export const EXPLAIN_DEVICES = ['desktop', 'mobile', 'tablet'] as const;
export type ExplainDevice = (typeof EXPLAIN_DEVICES)[number];

export const impressionQuery = {
  device: Type.Optional(
    Type.Union(
      EXPLAIN_DEVICES.map((device) => Type.Literal(device)),
      { description: 'Device type of the impression: desktop (default), mobile or tablet.' },
    ),
  ),
  country: Type.Optional(
    Text('ISO 3166-1 alpha-2 country code of the visitor (either case); none: a visitor of unknown country.', {
      pattern: '^[A-Za-z]{2}$',
    }),
  ),
  visitor: Type.Optional(
    Text('Visitor id (the `nv_vid` cookie of the serving domain), for retargeting audiences; none: a visitor in no audience.', {
      minLength: 1,
      maxLength: 64,
    }),
  ),
};

export interface ImpressionQuery {
  device?: ExplainDevice;
  country?: string;
  visitor?: string;
}

/** The impression the serving engine explains, from the query (defaults: desktop, no country, no visitor). */
export function readImpression(query: ImpressionQuery) {
  const device = query.device ?? 'desktop';
  return {
    device,
    deviceId: DEVICES[device],
    country: (query.country ?? '').toUpperCase(),
    visitorId: query.visitor,
  };
}

export const ImpressionFields = {
  device: Type.Union(
    EXPLAIN_DEVICES.map((device) => Type.Literal(device)),
    { description: 'Device type explained.' },
  ),
  country: Type.String({ description: 'Country explained (ISO code, upper case); empty: unknown country.' }),
};
