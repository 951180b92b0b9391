/** The path parameters of a route with any: each checked by its schema (400 VALIDATION_FAILED naming it). */
import * as v from 'valibot';
import type { ParamsSchema } from '../routes.js';
import { HttpError } from './error-codes.js';
import type { ApiEvent } from './response.js';

export function pathParams(schema: ParamsSchema, event: ApiEvent): Record<string, string> {
  // A missing parameter is an empty one: the route would not have matched without it.
  const given = Object.fromEntries(Object.keys(schema.entries).map((name) => [name, event.pathParameters?.[name] ?? '']));
  const result = v.safeParse(schema, given);
  if (!result.success) throw new HttpError('VALIDATION_FAILED', result.issues[0]?.message ?? 'A path parameter is not valid');
  return result.output;
}
