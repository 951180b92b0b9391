/**
 * The two rate limiters the benchmark sets side by side, behind one shape: a decider per instance (a Lambda
 * instance or a process, with its own memory), answering admitted, limit or banned for a customer and its limits.
 *
 * - ours: the API's own limiter, refusal-cache.ts around dynamo-limiter.ts, on the process's DynamoDB client.
 * - peer: rate-limiter-flexible's DynamoDB store, set up the most favourable correct way for a minute and a day
 *   limit: two RateLimiterDynamo (points = the limit, fixed windows of 60 s and 86,400 s), each with its
 *   recommended in-memory block (`inMemoryBlockOnConsumed` = points, so a key that used its window is refused from
 *   memory until the window ends), consumed minute first and day second, so a request refused by the minute never
 *   counts in the day; one refused by the day gives its minute point back. The library has no ban of the contract's
 *   kind (refusals in a minute), so the peer has none.
 */
import { DynamoDB } from '@aws-sdk/client-dynamodb';
import { RateLimiterDynamo, RateLimiterRes } from 'rate-limiter-flexible';
import { documentClient } from '../../lib/dynamo/client.js';
import type { Limits } from '../../lib/plans.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { refusalCache } from '../../lib/rate-limit/refusal-cache.js';

export type Decision = 'admitted' | 'limit' | 'banned';
export type Decider = (customerId: string, limits: Limits) => Promise<Decision>;

export function oursInstance(countersTable: string, db = documentClient()): Decider {
  const limiter = refusalCache(dynamoRateLimiter(db, countersTable, { banSeconds: 900 }));
  return async (customerId, limits) => {
    const admission = await limiter.consume(customerId, limits, Date.now());
    return admission.admitted ? 'admitted' : admission.reason;
  };
}

/** The peer's client: the aggregated DynamoDB class its documentation asks for. */
export function peerClient(endpoint: string): DynamoDB {
  return new DynamoDB({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

export const PEER_TABLE = 'bench-peer-rate-limits';

/** A refusal is a RateLimiterRes; anything else is a store error and propagates. */
async function refused(consume: Promise<unknown>): Promise<boolean> {
  try {
    await consume;
    return false;
  } catch (error) {
    if (error instanceof RateLimiterRes) return true;
    throw error;
  }
}

export function peerInstance(client: DynamoDB, table = PEER_TABLE): Decider {
  const byLimits = new Map<string, { minute: RateLimiterDynamo; day: RateLimiterDynamo }>();
  const limitersFor = (limits: Limits) => {
    const id = `${limits.perMinute}/${limits.perDay}`;
    let pair = byLimits.get(id);
    if (!pair) {
      const common = { storeClient: client, tableName: table, tableCreated: true, ttlSet: true };
      pair = {
        minute: new RateLimiterDynamo({
          ...common,
          keyPrefix: `minute${id}`,
          points: limits.perMinute,
          duration: 60,
          inMemoryBlockOnConsumed: limits.perMinute,
        }),
        day: new RateLimiterDynamo({
          ...common,
          keyPrefix: `day${id}`,
          points: limits.perDay,
          duration: 86_400,
          inMemoryBlockOnConsumed: limits.perDay,
        }),
      };
      byLimits.set(id, pair);
    }
    return pair;
  };
  return async (customerId, limits) => {
    const { minute, day } = limitersFor(limits);
    if (await refused(minute.consume(customerId))) return 'limit';
    if (await refused(day.consume(customerId))) {
      await minute.reward(customerId);
      return 'limit';
    }
    return 'admitted';
  };
}

/** The peer's key of a customer in its minute limiter, to set a window up as an earlier minute left it. */
export const peerMinuteKey = (customerId: string, limits: Limits) => `minute${limits.perMinute}/${limits.perDay}:${customerId}`;
