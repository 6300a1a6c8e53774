import type { WebhookKind } from './webhook-events.ts';

const deliveries = ['webhook-deliveries'] as const;
const attempts = ['webhook-attempts'] as const;

/** Query keys of the webhooks pages (web/src/query-keys.ts says how keys are built). */
export const webhookKeys = {
  endpoints: (kind: WebhookKind) => ['webhooks', kind] as const,
  deliveries: {
    all: () => deliveries,
    ofEndpoint: (endpointId: number) => [...deliveries, endpointId] as const,
    page: (endpointId: number, status: string, page: number) => [...deliveries, endpointId, status, page] as const,
  },
  attempts: {
    all: () => attempts,
    ofEndpoint: (endpointId: number) => [...attempts, endpointId] as const,
    page: (endpointId: number, page: number) => [...attempts, endpointId, page] as const,
  },
};
