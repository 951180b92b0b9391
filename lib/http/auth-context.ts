/**
 * Reads what the authorizer passed (requestContext.authorizer) into `context.auth`. On Lambda an operation is
 * only reached through the authorizer, so a missing or malformed context is refused rather than trusted.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { type AuthContext, AuthContextSchema } from '../auth/context.js';
import { HttpError } from './errors.js';
import type { ApiEvent, ApiResult } from './response.js';

export type AuthedContext = Context & { auth: AuthContext };

export function authContext(): middy.MiddlewareObj<ApiEvent, ApiResult | undefined> {
  return {
    before: function authContextBefore(request) {
      const parsed = v.safeParse(AuthContextSchema, request.event.requestContext?.authorizer);
      if (!parsed.success) {
        throw new HttpError('UNAUTHORIZED', 'The request carries no valid API key: send Authorization: Bearer <API key>');
      }
      (request.context as AuthedContext).auth = parsed.output;
    },
  };
}
