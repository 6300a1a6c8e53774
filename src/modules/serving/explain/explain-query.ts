import { Type } from '@sinclair/typebox';
import { Text } from '../../../http/input-types.ts';
import { DEVICES } from '../../statistics/index.ts';
import {
  type AgentTraits,
  BROWSER_FAMILIES,
  type BrowserFamily,
  OS_FAMILIES,
  type OsFamily,
} from '../selection/agent-targets.ts';

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
  os: Type.Optional(
    Text(`Operating system of the impression: ${OS_FAMILIES.join(', ')}, optionally :major (android:14); none: unknown.`, {
      pattern: `^(${OS_FAMILIES.join('|')})(:[0-9]{1,4})?$`,
    }),
  ),
  browser: Type.Optional(
    Text(`Browser of the impression: ${BROWSER_FAMILIES.join(', ')}, optionally :major (chrome:131); none: unknown.`, {
      pattern: `^(${BROWSER_FAMILIES.join('|')})(:[0-9]{1,4})?$`,
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
  os?: string;
  browser?: string;
  visitor?: string;
}

/** A `family:major` query value as the family and the major version (0: any). */
function familyAndMajor(value: string | undefined): [string, number] {
  const [family = '', major = '0'] = (value ?? '').split(':');
  return [family, Number(major)];
}

/** The impression the serving engine explains, from the query (defaults: desktop, no country, no visitor). */
export function readImpression(query: ImpressionQuery) {
  const device = query.device ?? 'desktop';
  const [os, osMajor] = familyAndMajor(query.os);
  const [browser, browserMajor] = familyAndMajor(query.browser);
  const agent: AgentTraits = { os: os as OsFamily | '', osMajor, browser: browser as BrowserFamily | '', browserMajor };
  return {
    device,
    agent,
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
