/** getRateLimitStatus: GET /rate-limit — not yet built (the rate limiter lands with issue 4). */
import { HttpError } from '../lib/http/errors.js';
import { operation } from '../lib/http/operation.js';

export const handler = operation('getRateLimitStatus', async () => {
  throw new HttpError('NOT_IMPLEMENTED', 'GET /rate-limit is not available yet');
});
