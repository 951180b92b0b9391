/** JSON Schemas of the document, from the valibot schemas the functions check with; named ones become components. */
import { type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { CategorySchema, NewCategorySchema } from '../categories/schema.js';
import { ERROR_CODES } from '../http/error-codes.js';
import { RateLimitStatusSchema } from '../rate-limit/schema.js';

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
  addIntegerFormats(rest);
  return rest;
}

// Open to new optional fields, compatible changes (docs/api.md, "Errors"): clients ignore fields they do not know.
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Every error. `status` equals the HTTP status; `message` tells a person what to fix. New optional fields may be added within /v1: ignore fields you do not know.',
  required: ['code', 'message', 'status'],
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code (a closed set).' },
    message: { type: 'string', maxLength: 1000, description: 'Human-readable description.' },
    status: { type: 'integer', format: 'int32', minimum: 400, maximum: 599, description: 'The HTTP status code of the response.' },
  },
};

/** Integers without a format are int64 (counts, Unix seconds), which generated clients must not read into 32 bits. */
function addIntegerFormats(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (!Array.isArray(node) && 'type' in node && node.type === 'integer' && !('format' in node)) Object.assign(node, { format: 'int64' });
  for (const value of Object.values(node)) addIntegerFormats(value);
}

export function componentSchemas(): Record<string, JsonSchema> {
  // Fresh objects from the converter, so adding formats in place changes nothing else.
  const schemas = toJsonSchemaDefs(COMPONENTS, CONFIG);
  addIntegerFormats(schemas);
  return { ...schemas, Error: ERROR_SCHEMA };
}
