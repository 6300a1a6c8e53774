/** More than `maxClicks` billed clicks from one address on one block within `windowMs` are a click flood. */
export interface ClickFloodRule {
  maxClicks: number;
  windowMs: number;
  /** How often the recent clicks are examined. */
  sweepMs: number;
}
