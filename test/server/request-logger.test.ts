import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { requestChildLogger } from '../../src/logger.ts';

/** A pino logger at `level` whose lines are kept, parsed. */
function capturingLogger(level: string): { logger: FastifyBaseLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger: logger as unknown as FastifyBaseLogger, lines };
}

describe('the request logger (childLoggerFactory)', () => {
  it('writes nothing below the level and every line at it with the request id', () => {
    const { logger, lines } = capturingLogger('warn');
    const log = requestChildLogger(logger, { reqId: 'r-1' }, {});
    log.info('not written');
    log.debug({ detail: 1 }, 'not written either');
    assert.equal(lines.length, 0);
    assert.equal(log.level, 'warn');
    log.warn({ cause: 'x' }, 'written');
    log.error('also written');
    log.child({ part: 'mail' }).error('from a child');
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.msg, line.level, line.cause, line.part]),
      [
        ['r-1', 'written', 40, 'x', undefined],
        ['r-1', 'also written', 50, undefined, undefined],
        ['r-1', 'from a child', 50, undefined, 'mail'],
      ],
    );
  });

  it('follows a level changed on it, and a route’s own level', () => {
    const { logger, lines } = capturingLogger('warn');
    const log = requestChildLogger(logger, { reqId: 'r-2' }, {});
    log.level = 'info';
    log.info('now written');
    assert.equal(logger.level, 'warn');
    const routeLevel = requestChildLogger(logger, { reqId: 'r-3' }, { level: 'debug' });
    routeLevel.debug('a debug line');
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.msg]),
      [
        ['r-2', 'now written'],
        ['r-3', 'a debug line'],
      ],
    );
  });
});
