/**
 * The deprecated-operation step, after admission: it logs the call (the admitting write has counted it, see
 * deprecated-calls.ts, so an operator sees who still uses the operation before its sunset) and, once the route's
 * sunset has passed, refuses with 410 GONE instead of running the handler.
 */
import type { AuthContext } from '../auth/context.js';
import { nowMs } from '../clock.js';
import type { Deprecation } from '../deprecation.js';
import { log } from '../log.js';
import { HttpError } from './error-codes.js';
import { datesInForce } from './route-headers.js';

export function deprecatedCall(
  operation: { operationId: string; method: string; path: string },
  deprecation: Deprecation,
  { customerId, keyId }: AuthContext,
): void {
  const { sunsetAt } = datesInForce(deprecation);
  log.info('deprecated operation called', { operationId: operation.operationId, customerId, keyId });
  if (nowMs() >= sunsetAt.getTime()) {
    throw new HttpError('GONE', `${operation.method} ${operation.path} was retired on ${sunsetAt.toUTCString()}; see the Link header`);
  }
}
