/**
 * The functions behind the local gateway, imported once and invoked with a Lambda context. A function that writes
 * beyond counters runs one invocation at a time, as its optimistic writes would otherwise retry against each other.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiEvent } from '../../lib/http/response.js';
import type { Route } from '../../lib/routes.js';
import { ROUTES } from '../../lib/routes.js';
import { lambdaContext } from './events.js';

type LambdaHandler = (event: ApiEvent, context: ReturnType<typeof lambdaContext>) => Promise<APIGatewayProxyResult | undefined>;

const loaded = new Map<string, Promise<LambdaHandler>>();
const queues = new Map<string, Promise<unknown>>();

function load(route: Route): Promise<LambdaHandler> {
  let handler = loaded.get(route.handler);
  if (!handler) {
    handler = import(`../../functions/${route.handler}.ts`).then((m: { handler: LambdaHandler }) => m.handler);
    loaded.set(route.handler, handler);
  }
  return handler;
}

/** Per route, worked out once: whether it writes beyond counters, so runs one invocation at a time. */
const serialized = new WeakMap<Route, boolean>();

function writesBeyondCounters(route: Route): boolean {
  let writes = serialized.get(route);
  if (writes === undefined) {
    writes = Object.entries(route.tables).some(([table, access]) => table !== 'counters' && access === 'write');
    serialized.set(route, writes);
  }
  return writes;
}

async function run(route: Route, event: ApiEvent): Promise<APIGatewayProxyResult | undefined> {
  return (await load(route))(event, lambdaContext(route.handler, event.requestContext.requestId));
}

export function invoke(route: Route, event: ApiEvent): Promise<APIGatewayProxyResult | undefined> {
  if (!writesBeyondCounters(route)) return run(route, event);
  const result = (queues.get(route.handler) ?? Promise.resolve()).then(() => run(route, event));
  queues.set(
    route.handler,
    result.catch(() => undefined),
  );
  return result;
}

/** Every operation's module, imported up front so that a broken one fails startup, not a request. */
export async function preloadFunctions(routes: readonly Route[] = ROUTES): Promise<void> {
  await Promise.all(routes.map(load));
}
