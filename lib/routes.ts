/**
 * The route table: every operation of the API, each described once and completely. The request path, the OpenAPI
 * document, the local gateway, the CDK stack and its IAM grants are all generated from these definitions, so an
 * operation added here (with its handler file) is routed, deployed, granted, checked and documented everywhere.
 */

import * as v from 'valibot';
import { CATEGORY_CAP, CategorySchema, NewCategorySchema } from './categories/schema.js';
import { DEPRECATION_DEFAULTS, type Deprecation } from './deprecation.js';
import type { TableId } from './dynamo/tables.js';
import { withThousands } from './format.js';
import type { ErrorCode } from './http/error-codes.js';
import type { BodySchema } from './http/validation.js';
import { RateLimitStatusSchema } from './rate-limit/schema.js';

export type Stability = 'stable' | 'beta' | 'experimental';
export type Access = 'read' | 'write';
export type Tag = 'Categories' | 'Rate limits' | 'Pets' | 'Store';

/**
 * How a route meets the rate limiter. `consume`: every admitted request counts against both windows. `peek`: the
 * windows are read, nothing is counted and nothing is refused (the handler gets the usage it read).
 */
export type Quota = 'consume' | 'peek';

/** Path parameters arrive as strings; each is checked by its own schema, whose failure message names it. */
export type ParamsSchema = v.ObjectSchema<Record<string, v.GenericSchema<string, string>>, undefined>;

/**
 * One operation. The type parameters are read from a definition (`defineRoute`), so that a handler file is checked
 * against its route: the body and success types of its handler, the usage a peek route is given, and whether it
 * must hand over the idempotency runner (lib/http/operation.ts).
 */
export interface Route<TQuota extends Quota = Quota, TBody = unknown, TIdempotent extends boolean = boolean, TSuccess = unknown> {
  operationId: string;
  method: 'GET' | 'POST';
  /** Path below the /v1 stage, in API Gateway's template syntax. */
  path: string;
  /** File name in functions/, without extension; also the Lambda function's construct id. */
  handler: string;
  summary: string;
  /** Longer documentation for the API reference. */
  description?: string;
  tag: Tag;
  stability: Stability;
  /**
   * Deprecated operations send Deprecation, Sunset and Link headers, and answer 410 GONE after the sunset. The
   * dates and link are the route's own, moved on a stage only by the variables it names (`overrides`).
   */
  deprecation?: Deprecation;
  quota: TQuota;
  /**
   * The handler only reads, so it may run while the request is being counted: the count and the read then cost
   * one round trip of latency together, and a refusal replaces the handler's answer. Routes that write wait for
   * admission first.
   */
  runsBeforeAdmission: boolean;
  /** DynamoDB tables the operation's function uses, and how; the CDK stack grants exactly these. */
  tables: Partial<Record<TableId, Access>>;
  /**
   * Takes an optional Idempotency-Key header (lib/idempotency/runner.ts): a retry with the same key and body gets the
   * first answer again, and nothing runs twice. Only for a POST, and the route then writes the idempotency table.
   * Said here only: the handler file of such a route must hand over the runner, and one of another route must not
   * (a type error either way).
   */
  idempotent?: TIdempotent;
  params?: ParamsSchema;
  /** The JSON request body, checked before the handler runs; the handler gets the parsed output. */
  body?: BodySchema<TBody>;
  /** The success answer; operations that only ever answer errors (501) have none. Its handler returns the body. */
  success?: { status: 200 | 201; description: string; schema: v.GenericSchema<unknown, TSuccess> };
  /** Error codes the operation itself answers with, beyond those of the request path (body, parameters, quota, deprecation). */
  errors: readonly ErrorCode[];
}

/**
 * Checks what every generator relies on, so a route that lacks a part fails at load, in every test. A route without
 * `idempotent: true` is typed as not idempotent, and one without a success answer as having no success body.
 */
export function defineRoute<TQuota extends Quota, TBody = unknown, TIdempotent extends boolean = false, TSuccess = never>(
  route: Route<TQuota, TBody, TIdempotent, TSuccess>,
): Route<TQuota, TBody, TIdempotent, TSuccess> {
  const where = `route ${route.operationId}`;
  const named = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
  const declared = Object.keys(route.params?.entries ?? {});
  if (named.join() !== declared.join()) throw new Error(`${where}: path parameters {${named}} but params declares {${declared}}`);
  if (!/^[a-z]+(-[a-z]+)*$/.test(route.handler)) throw new Error(`${where}: handler must be a kebab-case file name`);
  if ((route.method === 'POST') !== (route.body !== undefined)) throw new Error(`${where}: a POST takes a body and a GET none`);
  if (!route.success && !route.errors.includes('NOT_IMPLEMENTED')) throw new Error(`${where}: no success answer and not NOT_IMPLEMENTED`);
  if (route.runsBeforeAdmission && Object.entries(route.tables).some(([table, access]) => table !== 'counters' && access === 'write')) {
    throw new Error(`${where}: only a route that writes nothing but counters may run before admission`);
  }
  if (route.deprecation && route.quota !== 'consume') {
    throw new Error(`${where}: a deprecated call is counted by the write that admits it, so the route must consume quota`);
  }
  if (route.runsBeforeAdmission && route.deprecation) {
    throw new Error(`${where}: a deprecated call is logged, and answered 410 after the sunset, once it is admitted`);
  }
  if (route.quota === 'peek' && route.tables.counters !== 'read') throw new Error(`${where}: peeking reads the counters table`);
  if (route.quota === 'consume' && route.tables.counters !== 'write') throw new Error(`${where}: counting writes the counters table`);
  if (route.idempotent && route.method !== 'POST') throw new Error(`${where}: only a POST takes an Idempotency-Key`);
  if (Boolean(route.idempotent) !== (route.tables.idempotency === 'write')) {
    throw new Error(`${where}: an idempotent route writes the idempotency table, and only it does`);
  }
  return route;
}

const NOT_DEFINED = 'not implemented: the specification does not define its shape';

/** The largest int64, the format the interface gives petId. */
const INT64_MAX = 2n ** 63n - 1n;
const petIdMessage = (input: unknown) =>
  `"petId" must be a positive integer of at most ${INT64_MAX} (int64), without leading zeros; got "${String(input).slice(0, 40)}"`;

export const PetIdSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,18}$/, (issue) => petIdMessage(issue.input)),
  // Runs even after the regex failed (valibot reports every issue), so only on digits.
  v.check(
    (id) => !/^\d+$/.test(id) || BigInt(id) <= INT64_MAX,
    (issue) => petIdMessage(issue.input),
  ),
  // What a client sends; the OpenAPI document shows it instead of the string the gateway hands over.
  v.metadata({ type: 'integer', format: 'int64', minimum: 1 }),
  v.description(`The pet identifier: a positive integer, int64 (1 to ${INT64_MAX}), written without leading zeros.`),
);

export const listCategories = defineRoute({
  operationId: 'listCategories',
  method: 'GET',
  path: '/categories',
  handler: 'list-categories',
  summary: 'List all categories, in ascending id order',
  description: `All categories, ascending by id. There are no pagination or filter parameters: an environment holds at most ${withThousands(CATEGORY_CAP)}.`,
  tag: 'Categories',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: true,
  tables: { categories: 'read', counters: 'write' },
  success: {
    status: 200,
    description: 'Every category, in ascending id order.',
    schema: v.pipe(v.array(CategorySchema), v.metadata({ maxItems: CATEGORY_CAP })),
  },
  errors: [],
});

export const createCategory = defineRoute({
  operationId: 'createCategory',
  method: 'POST',
  path: '/categories',
  handler: 'create-category',
  summary: 'Create a category',
  tag: 'Categories',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { categories: 'write', counters: 'write', idempotency: 'write' },
  idempotent: true,
  body: NewCategorySchema,
  success: { status: 201, description: 'The category created, with its new id.', schema: CategorySchema },
  errors: ['CATEGORY_EXISTS', 'CATEGORY_LIMIT_REACHED'],
});

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

export const getPetById = defineRoute({
  operationId: 'getPetById',
  method: 'GET',
  path: '/pets/{petId}',
  handler: 'get-pet-by-id',
  summary: `Find a pet by id (deprecated; ${NOT_DEFINED})`,
  tag: 'Pets',
  stability: 'stable',
  deprecation: {
    since: DEPRECATION_DEFAULTS.deprecatedAt,
    sunset: DEPRECATION_DEFAULTS.sunsetAt,
    docsUrl: DEPRECATION_DEFAULTS.docsUrl,
    // The names operators have set since the first deploy (CDK context petsDeprecatedAt, petsSunsetAt, docsUrl).
    overrides: { since: 'PETS_DEPRECATED_AT', sunset: 'PETS_SUNSET_AT', docsUrl: 'DOCS_URL' },
  },
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { counters: 'write' },
  params: v.object({ petId: PetIdSchema }),
  errors: ['NOT_IMPLEMENTED'],
});

export const listStoreOrders = defineRoute({
  operationId: 'listStoreOrders',
  method: 'GET',
  path: '/store/orders',
  handler: 'list-store-orders',
  summary: `List store orders (beta; ${NOT_DEFINED})`,
  tag: 'Store',
  stability: 'beta',
  quota: 'consume',
  runsBeforeAdmission: true,
  tables: { counters: 'write' },
  errors: ['NOT_IMPLEMENTED'],
});

export const ROUTES: readonly Route[] = [listCategories, createCategory, getRateLimitStatus, getPetById, listStoreOrders];
