/**
 * What a route definition is (`Route`) and the checks every definition passes at load (`defineRoute`). Each
 * definition lives in a file of its own under lib/routes/, which its handler file imports alone; the table of them
 * all, which the generators read, is lib/routes.ts.
 */
import type * as v from 'valibot';
import type { Deprecation } from '../deprecation.js';
import type { TableId } from '../dynamo/tables.js';
import type { ErrorCode } from '../http/error-codes.js';
import type { BodySchema } from '../http/validation.js';

export type Stability = 'stable' | 'beta' | 'experimental';
export type Access = 'read' | 'write';
export type Tag = 'Categories' | 'Rate limits' | 'Pets' | 'Store';

/** `consume`: every admitted request counts against both windows. `peek`: the windows are read, nothing counted. */
export type Quota = 'consume' | 'peek';

/** Path parameters arrive as strings; each is checked by its own schema, whose failure message names it. */
export type ParamsSchema = v.ObjectSchema<Record<string, v.GenericSchema<string, string>>, undefined>;

/**
 * One operation. The type parameters are read from a definition (`defineRoute`), so that a handler file is checked
 * against its route: body and success types, a peek's usage, and whether it hands over the idempotency runner.
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
  /** Deprecation, Sunset and Link headers, and 410 GONE after the sunset; moved on a stage by its `overrides`. */
  deprecation?: Deprecation;
  quota: TQuota;
  /** The handler only reads, so it may run while the request is counted; a refusal replaces its answer. */
  runsBeforeAdmission: boolean;
  /** DynamoDB tables the operation's function uses, and how; the CDK stack grants exactly these. */
  tables: Partial<Record<TableId, Access>>;
  /** Takes an optional Idempotency-Key header (lib/idempotency/runner.ts); only a POST, which writes that table. */
  idempotent?: TIdempotent;
  params?: ParamsSchema;
  /** The JSON request body, checked before the handler runs; the handler gets the parsed output. */
  body?: BodySchema<TBody>;
  /** The success answer; operations that only ever answer errors (501) have none. Its handler returns the body. */
  success?: { status: 200 | 201; description: string; schema: v.GenericSchema<unknown, TSuccess> };
  /** Error codes the operation itself answers with, beyond those of the request path (body, parameters, quota, deprecation). */
  errors: readonly ErrorCode[];
}

/** Checks what every generator relies on, so a route that lacks a part fails at load, in every test. */
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

/** The summary's words for an operation the specification names without defining its shape. */
export const NOT_DEFINED = 'not implemented: the specification does not define its shape';
