/**
 * `unban` with several warm instances of one function, through the local gateway over HTTP: listCategories runs as
 * three instances (worker threads, each with its own rate limiter and memory of the ban, as Lambda's instances
 * have), the customer is banned and every instance has answered the ban from its own memory; then the operator
 * lifts it. Each instance stops answering API_KEY_TEMPORARILY_BANNED at its next check of the ban and never starts
 * again, although the customer is still over its minute limit: no new ban follows at once. The time the unban took
 * to reach every instance is printed; the bound itself (BAN_RECHECK_MS) is asserted with a controlled clock in
 * unban.test.ts, since this test runs on the real one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import { banThreshold } from '../../lib/rate-limit/ban.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { BAN_RECHECK_MS } from '../../lib/rate-limit/refusal-cache.js';
import { send } from '../support/contract-answer.js';
import { storedCounts } from '../support/counters.js';
import { makeCustomer, type TestCustomer, testDb } from '../support/customers.js';

const INSTANCES = 3;
/** Threshold 100: the requests this test sends after the unban (at most about 90) can never ban on their own. */
const LIMITS = { perMinute: 100, perDay: 1_000_000 };
/** Between two requests after the unban: each instance gets one about every 450 ms. */
const SPACING_MS = 150;

const ErrorCodeSchema = v.object({ code: v.string() });

let gateway: Gateway;
let customer: TestCustomer;
/** The instance that answered each request, in the order sent (the test sends one at a time). */
const served: number[] = [];

beforeAll(async () => {
  gateway = await startGateway(0, { instances: INSTANCES, onInvoked: ({ instance }) => served.push(instance) });
  customer = await makeCustomer('enterprise', LIMITS);
});

afterAll(async () => {
  await gateway.close();
});

interface Answered {
  /** Milliseconds after the unban started. */
  at: number;
  instance: number;
  /** The error code, or the status of a success. */
  outcome: string;
}

async function list(): Promise<{ instance: number; outcome: string }> {
  const answer = await send(`${gateway.url}/categories`, { headers: { Authorization: customer.authorization } });
  const error = v.safeParse(ErrorCodeSchema, answer.body);
  const instance = served.at(-1);
  if (instance === undefined) throw new Error('no instance answered');
  return { instance, outcome: error.success ? error.output.code : String(answer.status) };
}

const BANNED = 'API_KEY_TEMPORARILY_BANNED';

describe('unban with three warm instances of one function, through the local gateway', () => {
  it('reaches every instance at its next check, no instance flips back to the ban, and no new ban follows', async () => {
    expect(banThreshold(LIMITS)).toBe(100);
    // Banned, and every instance has answered the ban at least twice in a row (from its own memory).
    const bannedInARow = new Map<number, number>();
    for (let sent = 0; [...bannedInARow.values()].filter((n) => n >= 2).length < INSTANCES; sent++) {
      if (sent > 2_000) throw new Error('the customer was never banned on every instance');
      const { instance, outcome } = await list();
      bannedInARow.set(instance, outcome === BANNED ? (bannedInARow.get(instance) ?? 0) + 1 : 0);
    }
    expect(new Set(served).size).toBe(INSTANCES);
    expect((await storedCounts(customer.customerId)).banUntil).toBeDefined();

    // The operator's unban (the admin CLI's write, from outside the gateway).
    const started = Date.now();
    expect(await dynamoRateLimiter(testDb, process.env.COUNTERS_TABLE ?? '', { banSeconds: 900 }).unban(customer.customerId, started)).toBe(
      true,
    );
    const answers: Answered[] = [];
    while (Date.now() - started < BAN_RECHECK_MS + 2_000) {
      answers.push({ at: Date.now() - started, ...(await list()) });
      await sleep(SPACING_MS);
    }

    const reached: { instance: number; lastBanned: number | undefined; firstFree: number }[] = [];
    for (let instance = 0; instance < INSTANCES; instance++) {
      const own = answers.filter((a) => a.instance === instance);
      const firstFree = own.findIndex((a) => a.outcome !== BANNED);
      // Once an instance has answered without the ban, it never answers with it again.
      expect(firstFree).toBeGreaterThanOrEqual(0);
      expect(own.slice(firstFree).filter((a) => a.outcome === BANNED)).toEqual([]);
      // Without the ban, the customer is refused for its used-up minute (or admitted in a new one), nothing else.
      for (const a of own.slice(firstFree)) expect(['RATE_LIMIT_EXCEEDED', '200']).toContain(a.outcome);
      reached.push({ instance, lastBanned: own[firstFree - 1]?.at, firstFree: own[firstFree]?.at ?? Number.NaN });
    }
    // Still over its minute limit, the customer is not banned again: refusals from before the unban do not count.
    expect((await storedCounts(customer.customerId)).banUntil).toBeUndefined();

    const lastBanned = Math.max(...reached.map((r) => r.lastBanned ?? 0));
    const allFree = Math.max(...reached.map((r) => r.firstFree));
    console.log(
      `unban with ${INSTANCES} warm instances: the last answer with the ban came ${lastBanned} ms after the unban, every instance answered without it by ${allFree} ms (BAN_RECHECK_MS ${BAN_RECHECK_MS}; per instance: ${reached.map((r) => `#${r.instance} ${r.lastBanned ?? '-'}/${r.firstFree} ms`).join(', ')})`,
    );
  }, 60_000);
});
