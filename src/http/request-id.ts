import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An id a proxy may set: bounded, and only characters that are safe in a log line and a header. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Makes the request id of each request: the proxy's `X-Request-Id` when it sets a sane one (so one
 * id follows a request through the proxy's log and ours), otherwise this instance's random prefix
 * and a counter, unique across instances and cheap to make.
 */
export function requestIdGenerator(): (request: IncomingMessage) => string {
  const prefix = randomBytes(4).toString('hex');
  let counter = 0;
  return (request) => {
    const incoming = request.headers['x-request-id'];
    if (typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)) return incoming;
    counter += 1;
    return `${prefix}-${counter.toString(36)}`;
  };
}
