// The decision of general invalid traffic for one request (robots, automation, data centres,
// prefetches, foreign pages: docs/invalid-traffic.md), measured in process: goal ≤ 5 µs.
import { measureGivtDecision } from '../lib/givt-decision.ts';
import type { BenchRow } from '../lib/report.ts';
import type { Scenario } from '../run.ts';

const scenario: Scenario = {
  name: 'invalid-traffic decision in process',
  async run(): Promise<BenchRow[]> {
    const decisions = 2_000_000;
    const { microsPerDecision, invalid } = measureGivtDecision(decisions);
    const ms = microsPerDecision / 1000;
    return [
      {
        scenario: 'GIVT decision per request, in process (cached UA and /24)',
        result: {
          requestsPerSecond: Math.round(1e6 / microsPerDecision),
          p50: ms,
          p99: ms,
          total: decisions,
          errors: 0,
          timeouts: 0,
          statuses: {},
          tool: 'node',
        },
        goal: 'mean ≤ 5 µs',
        met: microsPerDecision <= 5,
        counts: { decisions, invalid },
      },
    ];
  },
};

export default scenario;
