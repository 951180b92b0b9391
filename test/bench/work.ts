/**
 * Benchmarks run in-process against DynamoDB Local through the real Middy chains: the DynamoDB work of each kind
 * of request (calls, sequential round trips, capacity units) and the warm overhead of each operation (handler
 * time minus time spent waiting on DynamoDB).
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { lambdaContext } from '../../infra/local/events.js';
import { setClock } from '../../lib/clock.js';
import type { ApiEvent } from '../../lib/http/response.js';
import { type Answer, invoke, proxyEvent } from '../support/events.js';
import { type Call, type DynamoMeter, percentile, sequentialRoundTrips, waitingMs } from './dynamo-meter.js';

type Handler = Parameters<typeof invoke>[0];

export type Work = {
  scenario: string;
  calls: number;
  sequential: number;
  readUnits: number;
  writeUnits: number;
  status: number | string;
};

export type Overhead = {
  operation: string;
  invocations: number;
  handlerMedianMs: number;
  overheadMedianMs: number;
  overheadP99Ms: number;
  dynamoMedianMs: number;
};

/** The handlers, imported when asked for: they read their configuration when they load. */
export async function loadHandlers() {
  return {
    listCategories: (await import('../../functions/list-categories.js')).handler,
    createCategory: (await import('../../functions/create-category.js')).handler,
    getRateLimitStatus: (await import('../../functions/get-rate-limit-status.js')).handler,
    getPetById: (await import('../../functions/get-pet-by-id.js')).handler,
    listStoreOrders: (await import('../../functions/list-store-orders.js')).handler,
    authorizer: (await import('../../functions/authorizer.js')).handler,
  };
}
export type Handlers = Awaited<ReturnType<typeof loadHandlers>>;

let instances = 0;
/** An operation's module: its handler takes an API Gateway event. */
function isOperationModule(loaded: unknown): loaded is { handler: Handler } {
  return typeof loaded === 'object' && loaded !== null && 'handler' in loaded && typeof loaded.handler === 'function';
}

/** The handler of a new module instance, as a new Lambda instance would load it (its modules' state starts empty). */
async function freshHandler(name: string): Promise<Handler> {
  instances += 1;
  const loaded: unknown = await import(`../../functions/${name}.ts?instance=${instances}`);
  if (!isOperationModule(loaded)) throw new Error(`functions/${name}.ts exports no handler`);
  return loaded.handler;
}

export function authorizerContext(customerId: string, perMinute: number, perDay: number, plan = 'enterprise') {
  return { principalId: customerId, customerId, keyId: 'key_bench00000000000', plan, perMinute: String(perMinute), perDay: String(perDay) };
}

export function events(authorizer: Record<string, string>) {
  return {
    listCategories: () => proxyEvent({ authorizer }),
    createCategory: () =>
      proxyEvent({
        method: 'POST',
        authorizer,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Bench ${randomUUID()}` }),
      }),
    /** The same key and body each time it is called with the same `key`: the first creates, the others replay. */
    createCategoryWithKey: (key: string) =>
      proxyEvent({
        method: 'POST',
        authorizer,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ name: `Bench ${key}` }),
      }),
    getRateLimitStatus: () => proxyEvent({ path: '/rate-limit', authorizer }),
    getPetById: () => proxyEvent({ path: '/pets/7', resource: '/pets/{petId}', pathParameters: { petId: '7' }, authorizer }),
    listStoreOrders: () => proxyEvent({ path: '/store/orders', authorizer }),
  } satisfies Record<string, (key: string) => ApiEvent>;
}

function summarise(scenario: string, calls: Call[], status: number | string): Work {
  return {
    scenario,
    calls: calls.length,
    sequential: sequentialRoundTrips(calls),
    readUnits: calls.reduce((s, c) => s + c.read, 0),
    writeUnits: calls.reduce((s, c) => s + c.write, 0),
    status,
  };
}

async function measure(meter: DynamoMeter, scenario: string, run: () => Promise<Answer | unknown>): Promise<Work> {
  meter.take();
  const answer = await run();
  const status = typeof answer === 'object' && answer && 'status' in answer && typeof answer.status === 'number' ? answer.status : 'Allow';
  return summarise(scenario, meter.take(), status);
}

/** How many categories an admitted listCategories finds, in the DynamoDB work table and in the cold starts. */
export const LISTED_CATEGORIES = 20;

/** Creates `count` categories through the handler (on an empty table, ids 1 to `count`). */
export async function addCategories(h: Handlers, count: number): Promise<void> {
  const creator = events(authorizerContext(`bench-${randomUUID().slice(0, 8)}`, 20_000, 1_000_000_000));
  for (let i = 0; i < count; i++) {
    const answer = await invoke(h.createCategory, creator.createCategory());
    if (answer.status !== 201) throw new Error(`creating the bench's categories: ${answer.status}`);
  }
}

export async function workPerRequest(h: Handlers, meter: DynamoMeter, authorizerEvent: APIGatewayRequestAuthorizerEvent): Promise<Work[]> {
  const big = events(authorizerContext(`bench-${randomUUID().slice(0, 8)}`, 20_000, 1_000_000_000));
  await addCategories(h, LISTED_CATEGORIES);
  await invoke(h.listCategories, big.listCategories()); // the customer's window exists: the common case

  const tight = events(authorizerContext(`bench-${randomUUID().slice(0, 8)}`, 1, 100_000));
  await invoke(h.listCategories, tight.listCategories());
  await invoke(h.listCategories, tight.listCategories()); // refused by DynamoDB: the instance now remembers it

  const key = randomUUID();
  const rows = [
    await measure(meter, `listCategories, admitted (${LISTED_CATEGORIES} categories)`, () =>
      invoke(h.listCategories, big.listCategories()),
    ),
    await measure(meter, 'createCategory, admitted', () => invoke(h.createCategory, big.createCategory())),
    await measure(meter, 'createCategory with Idempotency-Key, first', () => invoke(h.createCategory, big.createCategoryWithKey(key))),
    await measure(meter, 'createCategory with Idempotency-Key, replay', () => invoke(h.createCategory, big.createCategoryWithKey(key))),
    // A second instance of the handler module (its own category store, which has not seen the id counter yet). After
    // the other creates: the first instance's next create would find its guess stale and pay a failed transaction.
    await measure(meter, 'createCategory, admitted, on a new instance', async () =>
      invoke(await freshHandler('create-category'), big.createCategory()),
    ),
    await measure(meter, 'getRateLimitStatus', () => invoke(h.getRateLimitStatus, big.getRateLimitStatus())),
    await measure(meter, 'getPetById (deprecated: counted)', () => invoke(h.getPetById, big.getPetById())),
    await measure(meter, 'refused with 429 (instance has seen the refusal)', () => invoke(h.listCategories, tight.listCategories())),
  ];
  const later = Date.now() + 60_000;
  setClock(() => later);
  rows.push(await measure(meter, 'first request of a new minute', () => invoke(h.listCategories, big.listCategories())));
  // The next UTC day: a name not written yet, the same single write.
  const nextDay = (Math.floor(later / 86_400_000) + 1) * 86_400_000 + 5_000;
  setClock(() => nextDay);
  rows.push(await measure(meter, 'first request of a new UTC day', () => invoke(h.listCategories, big.listCategories())));
  // A day later the first day is final: the request still costs one write; the usage sweep, not the request, moves
  // the day to the history (functions/usage-sweep.ts).
  const dayAfter = nextDay + 86_400_000;
  setClock(() => dayAfter);
  rows.push(
    await measure(meter, 'first request once a day is final (the sweep moves it)', () => invoke(h.listCategories, big.listCategories())),
  );
  setClock(Date.now);
  rows.push(await measure(meter, 'authorizer, cache miss', () => h.authorizer(authorizerEvent, lambdaContext('authorizer', randomUUID()))));
  return rows;
}

export async function warmOverhead(
  h: Handlers,
  meter: DynamoMeter,
  invocations: number,
  resetCategories: () => Promise<void>,
): Promise<Overhead[]> {
  const e = events(authorizerContext(`bench-${randomUUID().slice(0, 8)}`, 30_000, 1_000_000_000));
  const out: Overhead[] = [];
  for (const operation of ['listCategories', 'createCategory', 'getRateLimitStatus', 'getPetById', 'listStoreOrders'] as const) {
    const handler = h[operation];
    const totals: number[] = [];
    const overheads: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < invocations; i++) {
      if (operation === 'createCategory' && i % 900 === 0) await resetCategories();
      const event = e[operation]();
      const context = lambdaContext(operation, event.requestContext.requestId);
      meter.take();
      const start = performance.now();
      const result = await handler(event, context);
      const total = performance.now() - start;
      if (!result || (result.statusCode >= 500 && result.statusCode !== 501))
        throw new Error(`${operation} answered ${result?.statusCode} during the benchmark`);
      // A refused create (its customer's allowance used up) would measure the refusal's path, not a create's.
      if (operation === 'createCategory' && result.statusCode !== 201)
        throw new Error(`a create answered ${result.statusCode} during the benchmark`);
      const wait = waitingMs(meter.take());
      totals.push(total);
      waits.push(wait);
      overheads.push(total - wait);
    }
    out.push({
      operation,
      invocations,
      handlerMedianMs: percentile(totals, 50),
      overheadMedianMs: percentile(overheads, 50),
      overheadP99Ms: percentile(overheads, 99),
      dynamoMedianMs: percentile(waits, 50),
    });
  }
  return out;
}
