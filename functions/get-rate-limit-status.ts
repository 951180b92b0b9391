/** getRateLimitStatus: GET /rate-limit — the caller's plan, both windows and any ban, without consuming quota. */
import { operation } from '../lib/http/operation.js';
import { json } from '../lib/http/response.js';
import type { RateLimitStatus } from '../lib/rate-limit/schema.js';
import { getRateLimitStatus } from '../lib/routes.js';

export const handler = operation(getRateLimitStatus, async (_event, { auth, usage }) => {
  const { name: _minute, ...minute } = usage.windows.minute;
  const { name: _day, ...day } = usage.windows.day;
  const status: RateLimitStatus = {
    customerId: auth.customerId,
    plan: auth.plan,
    minute,
    day,
    ban: { active: usage.banUntil !== null, until: usage.banUntil },
  };
  return json(200, status);
});
