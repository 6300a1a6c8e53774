import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/database.ts';
import { claimDueRules } from './rule-repository.ts';
import { runRule } from './rule-service.ts';

/** How many due rules one round claims; a round repeats while it finds a full batch. */
const BATCH = 50;

/**
 * Runs enabled rules every `intervalMs`. Each instance runs one scheduler; a rule is claimed by
 * moving its next run forward before it runs (claimDueRules), so with several instances each
 * due rule runs once. A rule that fails is logged and tried again at its next run.
 */
export class RuleScheduler {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<number> | undefined;

  private readonly db: Db;
  private readonly clock: Clock;
  private readonly options: { intervalMs: number; pollMs: number; timeZone: string };

  constructor(db: Db, clock: Clock, options: { intervalMs: number; pollMs: number; timeZone: string }) {
    this.db = db;
    this.clock = clock;
    this.options = options;
  }

  start(log: FastifyBaseLogger): void {
    this.timer = setInterval(() => {
      this.runDue(log).catch((error: unknown) => log.error({ err: error }, 'running optimisation rules failed'));
    }, this.options.pollMs);
    this.timer.unref();
  }

  /** Runs every rule due now; answers how many ran. Rounds never overlap within an instance. */
  runDue(log?: FastifyBaseLogger): Promise<number> {
    this.round ??= this.runRounds(log).finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  private async runRounds(log: FastifyBaseLogger | undefined): Promise<number> {
    let ran = 0;
    let claimed: number;
    do {
      const now = this.clock.now();
      const rules = await claimDueRules(this.db, new Date(now), new Date(now + this.options.intervalMs), BATCH);
      claimed = rules.length;
      for (const rule of rules) {
        try {
          await runRule(this.db, rule, {
            dryRun: false,
            now: new Date(now),
            timeZone: this.options.timeZone,
            trigger: 'schedule',
          });
          ran += 1;
        } catch (error) {
          log?.error({ err: error, ruleId: rule.id }, 'an optimisation rule failed');
        }
      }
    } while (claimed === BATCH);
    return ran;
  }

  /** Stops the timer and waits for the round under way. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.round?.catch(() => undefined);
  }
}
