/** How a click's charge divides between the publisher and the platform. */
export interface ChargeSplit {
  publisherMicros: number;
  marginMicros: number;
}

/**
 * The publisher's share is rounded down to a whole micro and the platform keeps the rest, so the
 * two always add up to the charge exactly.
 */
export function splitCharge(chargeMicros: number, revenueSharePercent: number): ChargeSplit {
  const publisherMicros = Math.floor((chargeMicros * revenueSharePercent) / 100);
  return { publisherMicros, marginMicros: chargeMicros - publisherMicros };
}
