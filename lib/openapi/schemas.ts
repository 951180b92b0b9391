/**
 * JSON Schemas of the document, converted from the valibot schemas the functions check with. Named schemas
 * become components and are referenced wherever a route's body or answer uses them.
 */
import { type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { CategorySchema, NewCategorySchema } from '../categories/schema.js';
import { ERROR_CODES } from '../http/errors.js';
import { RateLimitStatusSchema } from '../rate-limit/schema.js';

/** The named schemas, by component name. */
const COMPONENTS: Record<string, v.GenericSchema> = {
  Category: CategorySchema,
  NewCategory: NewCategorySchema,
  RateLimitStatus: RateLimitStatusSchema,
};

const CONFIG = {
  target: 'draft-2020-12',
  // Input types: what a client sends and reads, before the functions' transformations (trim, normalisation).
  typeMode: 'input',
  // valibot `check` actions (code points, control characters) have no JSON Schema counterpart: left out.
  errorMode: 'ignore',
  definitions: COMPONENTS,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
} as const satisfies Parameters<typeof toJsonSchema>[1];

/** A schema used in an operation: a $ref where it is (or holds) a named one. */
export function jsonSchema(schema: v.GenericSchema, ignoreActions: string[] = []): JsonSchema {
  const { $schema: _dialect, $defs: _defs, ...rest } = toJsonSchema(schema, { ...CONFIG, ignoreActions });
  return rest;
}

/** Every error. Open to new optional fields, which are compatible changes. */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Every error. `status` equals the HTTP status; `message` tells a person what to fix.',
  required: ['code', 'message', 'status'],
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code (a closed set).' },
    message: { type: 'string', description: 'Human-readable description.' },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the response.' },
  },
  additionalProperties: false,
};

export function componentSchemas(): Record<string, JsonSchema> {
  return { ...toJsonSchemaDefs(COMPONENTS, CONFIG), Error: ERROR_SCHEMA };
}
