/**
 * The OpenAPI 3.1 document of the API, built from the route table (operations, stability, deprecation) and the
 * valibot schemas (bodies), so the document cannot drift from what the gateway routes and the functions check.
 * It describes the whole contract of CONTRACT.md, authentication and rate limiting included. `npm run openapi`
 * writes it to openapi.json; the local gateway serves it at /v1/openapi.json.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { CategorySchema, DESCRIPTION_MAX, NAME_MAX, NewCategorySchema } from '../categories/schema.js';
import type { Env } from '../config.js';
import { ERROR_STATUS, type ErrorCode } from '../http/errors.js';
import { deprecationDates } from '../http/route-headers.js';
import { RateLimitStatusSchema } from '../rate-limit/schema.js';
import { type OperationId, ROUTES, type Route } from '../routes.js';

export const API_VERSION = '1.0.0';
/** The contract's body limit, enforced by the functions (lib/http/body-guard.ts). */
const BODY_LIMIT = '16 KiB';

export interface DocumentOptions {
  deprecatedAt: Date;
  sunsetAt: Date;
  docsUrl: string;
}

/** The parts of the configuration the document shows; throws, like the functions do, on a sunset before deprecation. */
export function documentOptions(source: Env): DocumentOptions {
  return { ...deprecationDates(source), docsUrl: source.DOCS_URL };
}

type Json = Record<string, unknown>;
const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

function jsonSchema(schema: v.GenericSchema): Json {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as Json;
  return rest;
}

/**
 * valibot `check` actions (length in code points, no control characters, not blank after trimming) have no JSON
 * Schema counterpart of their own; these are the ones a client can check before sending.
 */
function newCategorySchema(): Json {
  const schema = jsonSchema(NewCategorySchema) as { properties: Record<string, Json> } & Json;
  schema.properties.name = {
    ...schema.properties.name,
    minLength: 1,
    maxLength: NAME_MAX,
    description: `Trimmed and NFC-normalised, then 1 to ${NAME_MAX} characters (Unicode code points), no control characters. Unique per environment, compared ignoring case.`,
    examples: ['Dog'],
  };
  schema.properties.description = {
    ...schema.properties.description,
    maxLength: DESCRIPTION_MAX,
    description: `At most ${DESCRIPTION_MAX} characters; stored as sent.`,
    examples: ['Domestic dogs'],
  };
  return {
    ...schema,
    description: 'A category to create. Any other field, `id` included, is refused with 400 VALIDATION_FAILED naming the field.',
  };
}

function categorySchema(): Json {
  const schema = jsonSchema(CategorySchema) as { properties: Record<string, Json> } & Json;
  schema.properties.id = {
    ...schema.properties.id,
    format: 'int64',
    description: 'Assigned by the service: 1, 2, 3, … in creation order, never reused.',
  };
  schema.properties.description = { ...schema.properties.description, description: 'Omitted when not set.' };
  return schema;
}

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

function errorSchema(): Json {
  return {
    type: 'object',
    description: 'Every error. `status` equals the HTTP status; `message` tells a person what to fix.',
    required: ['code', 'message', 'status'],
    properties: {
      code: { type: 'string', enum: ERROR_CODES, description: 'Machine-readable error code (a closed set).' },
      message: { type: 'string', description: 'Human-readable description.' },
      status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the response.' },
    },
    additionalProperties: false,
  };
}

const HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed in the window with the fewest requests left after this one (on a tie, the day window). 0 on answers given before a customer is known (401, 404).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which that window resets.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Policy': {
    description:
      'IETF draft field: both windows of the plan, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`. Sent whenever a customer is known.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'IETF draft field: remaining quota and reset of both windows, e.g. `"minute";r=59;t=42`. Sent whenever a customer is known.',
    schema: { type: 'string' },
  },
  'X-Request-Id': {
    description: 'The id of this request; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'Retry-After': {
    description: 'Whole seconds (at least 1) to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated since this Unix time (seconds), written `@<seconds>`.',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP-date after which the operation answers 410 GONE.',
    required: true,
    schema: { type: 'string', examples: ['Tue, 01 Jun 2027 00:00:00 GMT'] },
  },
  Link: {
    description: 'The documentation of the deprecation, with `rel="deprecation"`.',
    required: true,
    schema: { type: 'string', pattern: 'rel="deprecation"' },
  },
  'X-API-Stability': {
    description: 'The stability of a non-stable operation; stable operations do not send it.',
    required: true,
    schema: { type: 'string', enum: ['beta', 'experimental'] },
  },
};

/** Headers on every response: X-Request-Id and the rate-limit headers. */
const COMMON_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit', 'X-Request-Id'];

interface ErrorResponseSpec {
  status: number;
  codes: ErrorCode[];
  description: string;
  /** The message of an example answer with the first code. */
  example: string;
  headers?: string[];
}

const UNAUTHORIZED: ErrorResponseSpec = {
  status: 401,
  codes: ['UNAUTHORIZED'],
  description: 'The API key is missing, malformed, unknown, revoked, or of the other environment.',
  example: 'The Authorization header is missing or its API key is not valid: send Authorization: Bearer <API key>',
};
const TOO_MANY: ErrorResponseSpec = {
  status: 429,
  codes: ['RATE_LIMIT_EXCEEDED', 'API_KEY_TEMPORARILY_BANNED', 'THROTTLED'],
  description:
    'RATE_LIMIT_EXCEEDED: a plan window is used up. API_KEY_TEMPORARILY_BANNED: too many refused requests; every key of the customer is banned for a while. THROTTLED: the stage-wide safety throttle. Wait for `Retry-After`, and back off exponentially.',
  example: 'The per-minute limit of your plan (60 requests) is used up; retry after the time in Retry-After',
  headers: ['Retry-After'],
};
const INTERNAL: ErrorResponseSpec = {
  status: 500,
  codes: ['INTERNAL_ERROR'],
  description: 'Something went wrong on our side; quote `X-Request-Id` if it persists.',
  example: 'Something went wrong on our side; quote request id 0b6e2c1f-6d0a-4c36-9a4e-2f1b7f0c9d10 if it persists',
};
const UNAVAILABLE: ErrorResponseSpec = {
  status: 503,
  codes: ['SERVICE_UNAVAILABLE'],
  description: 'The data store is unreachable or throttling; retry after `Retry-After`.',
  example: 'The service is temporarily unavailable; retry after the time in Retry-After',
  headers: ['Retry-After'],
};
const COMMON_ERRORS = [UNAUTHORIZED, TOO_MANY, INTERNAL, UNAVAILABLE];

const NOT_IMPLEMENTED: ErrorResponseSpec = {
  status: 501,
  codes: ['NOT_IMPLEMENTED'],
  description: 'The interface specification names this operation but does not define its shape, so it is not implemented.',
  example: 'This operation is not implemented: the interface specification does not define its shape',
};

interface OperationSpec {
  success?: { status: number; description: string; schema: Json };
  errors: ErrorResponseSpec[];
  description?: string;
}

/** What each operation answers beyond the route table; keyed by operationId so a new route cannot go undocumented. */
const OPERATIONS: Record<OperationId, OperationSpec> = {
  listCategories: {
    success: {
      status: 200,
      description: 'Every category, in ascending id order.',
      schema: { type: 'array', items: ref('schemas', 'Category') },
    },
    errors: [],
    description: 'All categories, ascending by id. There are no pagination or filter parameters: an environment holds at most 1,000.',
  },
  createCategory: {
    success: { status: 201, description: 'The category created, with its new id.', schema: ref('schemas', 'Category') },
    errors: [
      {
        status: 400,
        codes: ['MALFORMED_JSON', 'VALIDATION_FAILED'],
        description:
          'MALFORMED_JSON: the body is missing, empty or not JSON. VALIDATION_FAILED: the JSON breaks a NewCategory rule (also a body that is null, an array or a scalar); the message names the field.',
        example: 'The request body is not valid JSON',
      },
      {
        status: 409,
        codes: ['CATEGORY_EXISTS', 'CATEGORY_LIMIT_REACHED'],
        description:
          'CATEGORY_EXISTS: the name is taken (compared ignoring case). CATEGORY_LIMIT_REACHED: the environment has 1,000 categories.',
        example: 'A category named "Dog" already exists (names are compared ignoring case)',
      },
      {
        status: 413,
        codes: ['PAYLOAD_TOO_LARGE'],
        description: `The body is over ${BODY_LIMIT}.`,
        example: 'The request body is too large; the limit is 16384 bytes (16 KiB)',
      },
      {
        status: 415,
        codes: ['UNSUPPORTED_MEDIA_TYPE'],
        description: 'The body is not `application/json` (parameters such as `charset` are fine).',
        example: 'Content-Type "text/plain" is not supported: send the body as application/json',
      },
    ],
    description: `Checks run in the order a client fixes things: size (413, over ${BODY_LIMIT}), presence (400), media type (415), JSON syntax (400), fields (400), uniqueness (409).`,
  },
  getRateLimitStatus: {
    success: {
      status: 200,
      description: "The caller's plan, both windows and ban state.",
      schema: ref('schemas', 'RateLimitStatus'),
    },
    errors: [],
    description: 'Does not consume quota.',
  },
  getPetById: {
    errors: [
      {
        status: 400,
        codes: ['VALIDATION_FAILED'],
        description: '`petId` is not a positive integer.',
        example: '"petId" must be a positive integer, got "abc"',
      },
      {
        status: 410,
        codes: ['GONE'],
        description: 'The operation was retired on its sunset date.',
        example: 'GET /pets/{petId} was retired on Tue, 01 Jun 2027 00:00:00 GMT; see the Link header',
      },
      NOT_IMPLEMENTED,
    ],
  },
  listStoreOrders: { errors: [NOT_IMPLEMENTED] },
};

const PATH_PARAMETERS: Record<string, Json> = {
  petId: {
    name: 'petId',
    in: 'path',
    required: true,
    description: 'The pet identifier: a positive integer.',
    schema: { type: 'integer', format: 'int64', minimum: 1 },
  },
};

const TAGS: Record<string, string> = { categories: 'Categories', 'rate-limit': 'Rate limits', pets: 'Pets', store: 'Store' };

function headerRefs(names: string[]): Json {
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

function errorResponse(spec: ErrorResponseSpec, headers: string[]): Json {
  return {
    description: spec.description,
    headers: headerRefs([...headers, ...(spec.headers ?? [])]),
    content: {
      'application/json': {
        schema: {
          allOf: [ref('schemas', 'Error')],
          properties: { code: { enum: spec.codes }, status: { const: spec.status } },
        },
        example: { code: spec.codes[0], message: spec.example, status: spec.status },
      },
    },
  };
}

function operationObject(route: Route, options: DocumentOptions): Json {
  const spec = OPERATIONS[route.operationId as OperationId];
  const headers = [...COMMON_HEADERS];
  if (route.stability !== 'stable') headers.push('X-API-Stability');
  if (route.deprecated) headers.push('Deprecation', 'Sunset', 'Link');

  const responses: Record<string, Json> = {};
  if (spec.success) {
    responses[spec.success.status] = {
      description: spec.success.description,
      headers: headerRefs(headers),
      content: { 'application/json': { schema: spec.success.schema } },
    };
  }
  for (const error of [...spec.errors, ...COMMON_ERRORS].sort((a, b) => a.status - b.status)) {
    // A 401 comes from API Gateway before the operation runs, so it carries only the headers every response has.
    responses[error.status] = errorResponse(error, error.status === 401 ? [...COMMON_HEADERS] : headers);
  }

  const notes = [spec.description];
  if (route.stability !== 'stable') {
    notes.push(`Stability: **${route.stability}**; it may change without a new version. Responses carry \`X-API-Stability\`.`);
  }
  if (route.deprecated) {
    notes.push(
      `**Deprecated** since ${options.deprecatedAt.toISOString()}; sunset on ${options.sunsetAt.toISOString()} (${options.sunsetAt.toUTCString()}), after which it answers 410 GONE. Every response of the operation carries \`Deprecation\`, \`Sunset\` and \`Link: <${options.docsUrl}>; rel="deprecation"\`; a 401, which the gateway gives before the operation runs, does not.`,
    );
  }

  const parameters = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const parameter = PATH_PARAMETERS[name as string];
    if (!parameter) throw new Error(`The path parameter {${name}} of ${route.operationId} is not described in lib/openapi/document.ts`);
    return parameter;
  });

  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(notes.some(Boolean) ? { description: notes.filter(Boolean).join('\n\n') } : {}),
    tags: [TAGS[route.path.split('/')[1] as string] ?? 'Other'],
    ...(parameters.length ? { parameters } : {}),
    ...(route.hasBody
      ? {
          requestBody: {
            required: true,
            description: `A JSON body of at most ${BODY_LIMIT}.`,
            content: { 'application/json': { schema: ref('schemas', 'NewCategory') } },
          },
        }
      : {}),
    responses,
    ...(route.deprecated ? { deprecated: true, 'x-sunset': options.sunsetAt.toISOString() } : {}),
    'x-stability': route.stability,
  };
}

const INFO_DESCRIPTION = `Manages the species and breed categories used to classify pets.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\`. A key is \`pet_live_…\` for production or \`pet_test_…\` for staging; a key of the other environment gets 401.

**Rate limits.** Each plan has a per-minute and a per-day window (Free 60/1,000; Pro 300/10,000; Business 1,000/100,000; Enterprise agreed per customer). Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; over the limit the answer is 429 with \`Retry-After\`. Repeated refused requests ban every key of the customer for a while (429 \`API_KEY_TEMPORARILY_BANNED\`).

**Errors.** Every error is \`{"code","message","status"}\`. A path or method that does not exist under /v1 gets 404 \`NOT_FOUND\` (see \`components.responses.NotFound\`).

**Versioning.** The version is in the path (\`/v1\`). Operations carry \`x-stability\` (\`stable\`, \`beta\`, \`experimental\`); non-stable ones send \`X-API-Stability\`. Deprecated operations carry \`deprecated: true\` and \`x-sunset\`, and send \`Deprecation\`, \`Sunset\` and \`Link\` headers.`;

export function buildOpenApiDocument(options: DocumentOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of ROUTES as readonly Route[]) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operationObject(route, options);
    paths[route.path] = item;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      description: INFO_DESCRIPTION,
    },
    servers: [
      { url: 'http://localhost:3000/v1', description: 'Production, local (`npm start`)' },
      { url: 'http://localhost:3001/v1', description: 'Staging, local (`npm start`)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/v1',
        description: 'Production, deployed: the API id is in the outputs of the PetStore-Production stack',
        variables: {
          apiId: { default: 'production-api-id', description: 'The REST API id of PetStore-Production' },
          region: { default: 'eu-west-1', description: 'The AWS region the stack is deployed to' },
        },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/v1',
        description: 'Staging, deployed: the API id is in the outputs of the PetStore-Staging stack',
        variables: {
          apiId: { default: 'staging-api-id', description: 'The REST API id of PetStore-Staging' },
          region: { default: 'eu-west-1', description: 'The AWS region the stack is deployed to' },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Categories', description: 'Species and breed categories' },
      { name: 'Rate limits', description: "The caller's plan and usage" },
      { name: 'Pets', description: 'Named by the specification, shape not defined' },
      { name: 'Store', description: 'Named by the specification, shape not defined' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key: pet_live_… (production) or pet_test_… (staging), then 30 base62 characters and a 6-character checksum',
          description: 'An API key issued with `npm run petstore -- keys create`, sent as `Authorization: Bearer <key>`.',
        },
      },
      schemas: {
        Category: categorySchema(),
        NewCategory: newCategorySchema(),
        RateLimitStatus: jsonSchema(RateLimitStatusSchema),
        Error: errorSchema(),
      },
      headers: HEADERS,
      responses: {
        NotFound: errorResponse(
          {
            status: 404,
            codes: ['NOT_FOUND'],
            description: 'No such operation: the path, or the method on it, does not exist under /v1.',
            example: 'There is no such operation: check the method and the path (see the API reference)',
          },
          ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'],
        ),
      },
    },
  };
}
