/** getRateLimitStatus: GET /rate-limit — the caller's plan, both windows and any ban, without consuming quota. */
import { operation } from '../lib/http/operation.js';
import { getRateLimitStatus } from '../lib/routes/rate-limit-status.js';

export const handler = operation(getRateLimitStatus, async ({ caller, usage }) => {
  const { name: _minute, ...minute } = usage.windows.minute;
  const { name: _day, ...day } = usage.windows.day;
  return {
    customerId: caller.customerId,
    plan: caller.plan,
    minute,
    day,
    ban: { active: usage.banUntil !== null, until: usage.banUntil },
  };
});
