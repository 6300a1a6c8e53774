/**
 * The one home of statistics: its vocabulary, the write path (record-events, rollups), the sums
 * other modules show beside their objects, the figures' schemas and the periods.
 */
export {
  advertiserFigures,
  conversionSourceProperties,
  figureProperties,
  publisherFigureFields,
  publisherFigures,
  servedAndRefundedProperties,
} from './figures.ts';
export { type Period, readPeriod } from './period.ts';
export { recordEvents, rollupWrites } from './record-events.ts';
export {
  totalsByCampaign,
  totalsByOffer,
  totalsBySite,
  trafficByBlock,
  trafficByDevice,
  trafficBySite,
} from './statistics-service.ts';
export {
  DEVICES,
  type DeviceId,
  dayOf,
  GOALS,
  type GoalId,
  readIdList,
  type TargetId,
  TargetIdParameter,
  type Totals,
  type TrafficEvent,
  ZERO_PUBLISHER_TOTALS,
  ZERO_TOTALS,
} from './vocabulary.ts';
