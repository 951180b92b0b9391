/**
 * The deprecated-operation step, after admission: it logs the call (the admitting write has counted it, see
 * deprecated-calls.ts, so an operator sees who still uses the operation before its sunset) and, once the sunset has
 * passed, answers 410 GONE instead of running the handler. The Deprecation, Sunset and Link headers are
 * response-headers.ts's.
 */
import { nowMs } from '../clock.js';
import type { Deprecation } from '../deprecation.js';
import { log } from '../log.js';
import { callerOf, type OperationMiddleware } from './context.js';
import { HttpError } from './errors.js';
import { datesInForce } from './response-headers.js';

export function deprecated(
  operation: { operationId: string; method: string; path: string },
  deprecation: Deprecation,
): OperationMiddleware {
  return {
    before: function deprecatedBefore(request) {
      const { customerId, keyId } = callerOf(request.context);
      const { sunsetAt } = datesInForce(deprecation);
      const now = nowMs();
      log.info('deprecated operation called', { operationId: operation.operationId, customerId, keyId });
      if (now >= sunsetAt.getTime()) {
        throw new HttpError('GONE', `${operation.method} ${operation.path} was retired on ${sunsetAt.toUTCString()}; see the Link header`);
      }
    },
  };
}
