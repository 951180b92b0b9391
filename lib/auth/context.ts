/** What the authorizer hands to every operation; API Gateway passes its values as strings, the schema yields numbers. */
import * as v from 'valibot';
import { PlanSchema } from '../plans.js';

const count = v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.integer(), v.minValue(1));

export const AuthContextSchema = v.object({
  customerId: v.pipe(v.string(), v.minLength(1)),
  keyId: v.pipe(v.string(), v.minLength(1)),
  plan: PlanSchema,
  perMinute: count,
  perDay: count,
});
export type AuthContext = v.InferOutput<typeof AuthContextSchema>;
