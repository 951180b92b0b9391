/** The Rate limits route: getRateLimitStatus, which reads the caller's windows without counting. */
import { RateLimitStatusSchema } from '../rate-limit/schema.js';
import { defineRoute } from './definition.js';

export const getRateLimitStatus = defineRoute({
  operationId: 'getRateLimitStatus',
  method: 'GET',
  path: '/rate-limit',
  handler: 'get-rate-limit-status',
  summary: "The caller's plan, both rate-limit windows and ban state, without consuming quota",
  description:
    "Does not consume quota. A server instance reads the counters at most once a second: between reads, remaining is an upper bound and reset is exact; during a ban the answer comes from the instance's memory of the ban.",
  tag: 'Rate limits',
  stability: 'stable',
  quota: 'peek',
  runsBeforeAdmission: false,
  tables: { counters: 'read' },
  success: { status: 200, description: "The caller's plan, both windows and ban state.", schema: RateLimitStatusSchema },
  errors: [],
});
