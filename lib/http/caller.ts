/**
 * The caller: what the authorizer passed (requestContext.authorizer). On Lambda an operation is only reached through
 * the authorizer, so a missing or malformed context is refused rather than trusted. A request with more than one
 * Authorization header is refused here too: API Gateway caches the authorizer's decision by one header value, so an
 * Allow cached for a single key could otherwise let a request carrying two through.
 */
import * as v from 'valibot';
import { authorizationValues, REPEATED_AUTHORIZATION_MESSAGE } from '../auth/authorization-header.js';
import { type AuthContext, AuthContextSchema } from '../auth/context.js';
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE } from './answer-headers.js';
import { HttpError } from './error-codes.js';
import type { ApiEvent } from './response.js';

export function callerOf(event: ApiEvent): AuthContext {
  if (authorizationValues(event.headers, event.multiValueHeaders).length > 1) {
    throw new HttpError('UNAUTHORIZED', REPEATED_AUTHORIZATION_MESSAGE, { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE });
  }
  const parsed = v.safeParse(AuthContextSchema, event.requestContext?.authorizer);
  if (!parsed.success) {
    throw new HttpError('UNAUTHORIZED', 'The request carries no valid API key: send Authorization: Bearer <API key>', {
      'WWW-Authenticate': BEARER_CHALLENGE,
    });
  }
  return parsed.output;
}
