import { type AvailabilityEvents, describe } from './db/availability.ts';

/** The services a Nativa instance talks to over the network. */
export type Dependency = 'database' | 'redis';

/** Where the monitor writes: the server's log. */
export interface DependencyLog {
  warn(message: string): void;
  info(message: string): void;
}

/**
 * Keeps what this instance has seen of its dependencies: connections lost or refused, answers
 * taken from in-process state because Redis was away or slow, and clicks redirected unrecorded
 * because the database was away. Plain numbers, read by the metrics when scraped (like the
 * serving tally). An outage is logged when it begins and when it ends, not on every failure.
 */
export class DependencyMonitor {
  readonly counts = {
    connectionFailures: { database: 0, redis: 0 } as Record<Dependency, number>,
    /** Redis-backed decisions answered from in-process state, by store. */
    fallbacks: {} as Record<string, number>,
  };
  private readonly downSince = new Map<Dependency, number>();
  private readonly log: DependencyLog;
  private readonly now: () => number;

  constructor(now: () => number, log: DependencyLog) {
    this.now = now;
    this.log = log;
  }

  failed(dependency: Dependency, error: unknown): void {
    this.counts.connectionFailures[dependency] += 1;
    if (this.downSince.has(dependency)) return;
    this.downSince.set(dependency, this.now());
    this.log.warn(`${dependency} unavailable: ${describe(error)}`);
  }

  restored(dependency: Dependency): void {
    const since = this.downSince.get(dependency);
    if (since === undefined) return;
    this.downSince.delete(dependency);
    this.log.info(`${dependency} available again after ${((this.now() - since) / 1000).toFixed(1)} s`);
  }

  isDown(dependency: Dependency): boolean {
    return this.downSince.has(dependency);
  }

  fellBack(store: string): void {
    this.counts.fallbacks[store] = (this.counts.fallbacks[store] ?? 0) + 1;
  }

  /** The database pool's events, reported to this monitor. */
  get database(): AvailabilityEvents {
    return {
      connectionFailed: (error) => this.failed('database', error),
      connectionMade: () => this.restored('database'),
    };
  }
}
