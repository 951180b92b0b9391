/**
 * The route table: every operation of the API, once. The local gateway, the CDK stacks and the OpenAPI document
 * are all built from it, so adding an operation here adds its route, its function and its grants everywhere.
 */
import type { TableId } from './dynamo/tables.js';

export type Stability = 'stable' | 'beta' | 'experimental';
export type Access = 'read' | 'write';

export interface Route {
  operationId: string;
  method: 'GET' | 'POST';
  /** Path below the /v1 stage, in API Gateway's template syntax. */
  path: string;
  /** File name in functions/, without extension; also the Lambda function's logical name. */
  handler: string;
  summary: string;
  stability: Stability;
  /** Deprecated operations send Deprecation, Sunset and Link headers, and answer 410 after the sunset date. */
  deprecated?: true;
  /** Whether an admitted request counts against the plan's windows. */
  consumesQuota: boolean;
  /** Whether the operation takes a JSON request body. */
  hasBody: boolean;
  /** DynamoDB tables the operation's function uses, and how; the CDK stack grants exactly these. */
  tables: Partial<Record<TableId, Access>>;
}

export const ROUTES = [
  {
    operationId: 'listCategories',
    method: 'GET',
    path: '/categories',
    handler: 'list-categories',
    summary: 'List all categories, in ascending id order',
    stability: 'stable',
    consumesQuota: true,
    hasBody: false,
    tables: { categories: 'read', counters: 'write' },
  },
  {
    operationId: 'createCategory',
    method: 'POST',
    path: '/categories',
    handler: 'create-category',
    summary: 'Create a category',
    stability: 'stable',
    consumesQuota: true,
    hasBody: true,
    tables: { categories: 'write', counters: 'write' },
  },
  {
    operationId: 'getRateLimitStatus',
    method: 'GET',
    path: '/rate-limit',
    handler: 'get-rate-limit-status',
    summary: "The caller's plan, both rate-limit windows and ban state, without consuming quota",
    stability: 'stable',
    consumesQuota: false,
    hasBody: false,
    tables: { counters: 'read' },
  },
  {
    operationId: 'getPetById',
    method: 'GET',
    path: '/pets/{petId}',
    handler: 'get-pet-by-id',
    summary: 'Find a pet by id (deprecated; not implemented: the specification does not define its shape)',
    stability: 'stable',
    deprecated: true,
    consumesQuota: true,
    hasBody: false,
    tables: { counters: 'write' },
  },
  {
    operationId: 'listStoreOrders',
    method: 'GET',
    path: '/store/orders',
    handler: 'list-store-orders',
    summary: 'List store orders (beta; not implemented: the specification does not define its shape)',
    stability: 'beta',
    consumesQuota: true,
    hasBody: false,
    tables: { counters: 'write' },
  },
] as const satisfies readonly Route[];

export type OperationId = (typeof ROUTES)[number]['operationId'];

export function routeFor(operationId: OperationId): Route {
  const route = ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route for ${operationId}`);
  return route;
}

export type RouteMatch = { route: Route; pathParameters: Record<string, string> | null };

/**
 * The operation for a method and a path below /v1. A known path with another method has no match either: API
 * Gateway answers both with its Missing Authentication Token response, which the contract turns into 404.
 */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const route of ROUTES as readonly Route[]) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, pathParameters: Object.keys(params).length ? params : null };
  }
  return undefined;
}

function matchPath(template: string, path: string): Record<string, string> | undefined {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith('{') && w.endsWith('}')) {
      if (g === '') return undefined;
      params[w.slice(1, -1)] = safeDecode(g);
    } else if (w !== g) return undefined;
  }
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
