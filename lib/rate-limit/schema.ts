/** The answer of GET /rate-limit (getRateLimitStatus); its type is inferred from the schema. */
import * as v from 'valibot';
import { PlanSchema } from '../plans.js';

export const RateLimitWindowSchema = v.object({
  limit: v.pipe(v.number(), v.integer(), v.minValue(0)),
  remaining: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** Unix time (seconds) at which the current window ends and the count starts again. */
  reset: v.pipe(v.number(), v.integer()),
});

export const RateLimitStatusSchema = v.object({
  customerId: v.pipe(v.string(), v.metadata({ maxLength: 64 })),
  plan: PlanSchema,
  minute: RateLimitWindowSchema,
  day: RateLimitWindowSchema,
  ban: v.object({
    active: v.boolean(),
    /** Unix time (seconds) at which the ban ends; null when there is none. */
    until: v.nullable(v.pipe(v.number(), v.integer())),
  }),
});
