/** The Prometheus metrics of an app: its registry and the HTTP layer's counters. */
export { createMetrics, type Metrics, registerRequestMetrics } from './metrics.ts';
