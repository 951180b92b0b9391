/** What the client sends and receives, inferred from the schemas the server checks with (NewCategory: the input). */
import type * as v from 'valibot';
import type { CategorySchema, NewCategorySchema } from '../categories/schema.js';
import type { RateLimitStatusSchema } from '../rate-limit/schema.js';

export type { ErrorBody, ErrorCode } from '../http/error-codes.js';
export type { Plan } from '../plans.js';

export type NewCategory = v.InferInput<typeof NewCategorySchema>;
export type Category = v.InferOutput<typeof CategorySchema>;
export type RateLimitStatus = v.InferOutput<typeof RateLimitStatusSchema>;
