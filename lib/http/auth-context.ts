/**
 * Reads what the authorizer passed (requestContext.authorizer) into `context.auth`. On Lambda an operation is
 * only reached through the authorizer, so a missing or malformed context is refused rather than trusted.
 */
import * as v from 'valibot';
import { AuthContextSchema } from '../auth/context.js';
import type { OperationMiddleware } from './context.js';
import { HttpError } from './errors.js';

export function authContext(): OperationMiddleware {
  return {
    before: function authContextBefore(request) {
      const parsed = v.safeParse(AuthContextSchema, request.event.requestContext?.authorizer);
      if (!parsed.success) {
        throw new HttpError('UNAUTHORIZED', 'The request carries no valid API key: send Authorization: Bearer <API key>');
      }
      request.context.auth = parsed.output;
    },
  };
}
