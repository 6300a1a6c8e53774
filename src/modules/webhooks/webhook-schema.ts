import { type Static, Type } from '@sinclair/typebox';
import { Count, Money, Text } from '../../http/input-types.ts';
import { microsToAmount } from '../../money.ts';
import { WEBHOOK_EVENT_TYPES } from './event-types.ts';
import type { AttemptRow, DeliveryRow, EndpointRow } from './webhook-repository.ts';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const EventTypeSchema = Type.Union(
  WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type)),
  { description: 'An event type (docs/webhooks.md lists what each one carries).' },
);

const EventsInput = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: "The events this endpoint receives; each must concern the account's kind (an operator's: any, platform-wide).",
});

const UrlInput = Text(
  'Where deliveries are POSTed: an https:// URL whose host resolves to public addresses only (no redirects are followed).',
  { minLength: 8, maxLength: 2000 },
);

const ThresholdInput = Type.Union(
  [Money('Balance below which balance.below_threshold fires, in currency units.', { minimum: 0 }), Type.Null()],
  { description: 'Balance below which balance.below_threshold fires, in currency units; null: never.' },
);

export const CreateEndpointBody = Type.Object(
  {
    url: UrlInput,
    events: EventsInput,
    description: Type.Optional(Text('A note for the account, e.g. what receives the events.', { maxLength: 255 })),
    active: Type.Optional(Type.Boolean({ description: 'Whether events are delivered to it (default true).' })),
    balanceThreshold: Type.Optional(ThresholdInput),
  },
  { additionalProperties: false },
);

export const ChangeEndpointBody = Type.Object(
  {
    url: Type.Optional(UrlInput),
    events: Type.Optional(EventsInput),
    description: Type.Optional(Text('A note for the account, e.g. what receives the events.', { maxLength: 255 })),
    active: Type.Optional(
      Type.Boolean({ description: 'Whether events are delivered to it; pending deliveries wait while it is not.' }),
    ),
    balanceThreshold: Type.Optional(ThresholdInput),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  {
    graceSeconds: Type.Optional(
      Count(
        'How long the old secret keeps signing deliveries beside the new one (default 86400, at most 7 days; 0: not at all).',
        {
          minimum: 0,
          maximum: 7 * 86_400,
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const EndpointSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Endpoint id.' }),
    url: Type.String({ description: 'Where deliveries are POSTed.' }),
    events: Type.Array(Type.String({ description: 'An event type.' }), { description: 'The events it receives.' }),
    description: Type.String({ description: 'The account’s note.' }),
    active: Type.Boolean({ description: 'Whether events are delivered to it.' }),
    balanceThreshold: Type.Union([Type.Number(), Type.Null()], {
      description: 'Balance below which balance.below_threshold fires, in currency units; null: never.',
    }),
    previousSecretUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Until when the secret before the last rotation still signs deliveries; null when it does not.',
    }),
    date: Type.String({ format: 'date-time', description: 'When it was registered.' }),
  },
  { description: 'A webhook endpoint.' },
);

export const EndpointWithSecretSchema = Type.Object(
  {
    ...EndpointSchema.properties,
    secret: Type.String({
      description: 'The signing secret (HMAC-SHA256 key of the Nativa-Signature header). Shown only when created or rotated.',
    }),
  },
  { description: 'A webhook endpoint with its signing secret.' },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Delivery id.' }),
    eventId: Type.String({ description: 'The event id (the same in every delivery of one event: deduplicate by it).' }),
    type: Type.String({ description: 'The event type.' }),
    status: Type.Union(
      DELIVERY_STATUSES.map((status) => Type.Literal(status)),
      { description: 'pending (not answered with 2xx yet, retried), delivered (answered 2xx), failed (no 2xx within 24 hours).' },
    ),
    attempts: Type.Integer({ description: 'Attempts so far.' }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the next attempt is due.',
    }),
    date: Type.String({ format: 'date-time', description: 'When the event happened.' }),
    deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was answered with 2xx.',
    }),
  },
  { description: 'One event on its way to one endpoint.' },
);

export const AttemptSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Attempt id.' }),
    deliveryId: Type.Integer({ description: 'The delivery attempted.' }),
    eventId: Type.String({ description: 'The event id.' }),
    type: Type.String({ description: 'The event type.' }),
    date: Type.String({ format: 'date-time', description: 'When the attempt was made.' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status the endpoint answered; null without an answer (refused address, timeout, TLS error).',
    }),
    latencyMs: Type.Integer({ description: 'Milliseconds from the start of the attempt to the answer (or the failure).' }),
    error: Type.String({ description: 'Why the attempt did not count as delivered; empty when it did.' }),
    response: Type.String({ description: 'The first 1024 bytes of the answer body.' }),
  },
  { description: 'One attempt of a delivery: the delivery log.' },
);

export function toEndpoint(row: EndpointRow): Static<typeof EndpointSchema> {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    active: row.active,
    balanceThreshold: row.balance_threshold_micros === null ? null : microsToAmount(row.balance_threshold_micros),
    previousSecretUntil: row.previous_secret_until?.toISOString() ?? null,
    date: row.created_at.toISOString(),
  };
}

export function toDelivery(row: DeliveryRow): Static<typeof DeliverySchema> {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    date: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

export function toAttempt(row: AttemptRow): Static<typeof AttemptSchema> {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    type: row.event_type,
    date: row.attempted_at.toISOString(),
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    error: row.error,
    response: row.response_excerpt,
  };
}
