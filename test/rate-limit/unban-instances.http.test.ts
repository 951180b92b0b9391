/**
 * `unban` with several warm instances of one function, through the local gateway over HTTP: listCategories runs as
 * three instances (LAMBDA_INSTANCES=3: worker threads, each with its own rate limiter and memory of the ban, as
 * Lambda's instances have), the customer is banned and every instance has answered the ban from its own memory; then
 * the operator runs the admin CLI's `unban` (in this process, against the same tables). Requests keep coming, one at
 * a time, and each answer is recorded with the time its request was sent, counted from the moment `unban` returned.
 *
 * The gateway's instances run on the real clock (each worker has its own, which a test cannot set), so this test
 * asserts the bound the operators' documentation states, not how fast this machine is: no request sent later than
 * BAN_RECHECK_MS after the unban is answered with the ban (the instance takes its time after the request is sent, on
 * the same clock, and checks a remembered ban BAN_RECHECK_MS after it last read it, which was before the unban
 * returned). Once an instance answers without the ban it never answers with it again, and the customer, still over
 * its limit, is refused with RATE_LIMIT_EXCEEDED and not banned again: the refusals from before the unban do not
 * count. The same bound on the test's clock, every call counted, is in unban.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import { banThreshold } from '../../lib/rate-limit/ban.js';
import { BAN_RECHECK_MS } from '../../lib/rate-limit/refusal-cache.js';
import { petstore } from '../support/cli.js';
import { send } from '../support/contract-answer.js';
import { storedCounts } from '../support/counters.js';
import { makeCustomer, type TestCustomer } from '../support/customers.js';

/** What `LAMBDA_INSTANCES=3 npm start` runs: three warm instances of each function. */
const INSTANCES = 3;
/**
 * Threshold 100: the requests this test sends after the unban (about 90) can never ban on their own. The day's
 * limit equals the minute's, so a minute that ends during the test leaves the customer over its limit all the same
 * (refused for the day instead of the minute) and every answer without the ban must be RATE_LIMIT_EXCEEDED.
 */
const LIMITS = { perMinute: 100, perDay: 100 };
/** Between two requests after the unban: each instance gets one about every 450 ms. */
const SPACING_MS = 150;
/** How long after the bound the test keeps asking, to see that no instance flips back to the ban. */
const AFTER_BOUND_MS = 2_000;

const ErrorCodeSchema = v.object({ code: v.string() });
const BANNED = 'API_KEY_TEMPORARILY_BANNED';

let gateway: Gateway;
let customer: TestCustomer;
/** The instance that answered each request, in the order sent (requests whose instance matters go one at a time). */
const served: number[] = [];

beforeAll(async () => {
  gateway = await startGateway(0, { instances: INSTANCES, preload: true, onInvoked: ({ instance }) => served.push(instance) });
  customer = await makeCustomer('enterprise', LIMITS);
});

afterAll(async () => {
  await gateway.close();
});

async function list(): Promise<{ instance: number; outcome: string }> {
  const answer = await send(`${gateway.url}/categories`, { headers: { Authorization: customer.authorization } });
  const error = v.safeParse(ErrorCodeSchema, answer.body);
  const instance = served.at(-1);
  if (instance === undefined) throw new Error('no instance answered');
  return { instance, outcome: error.success ? error.output.code : String(answer.status) };
}

/** The bound docs/operating.md ("Bans") promises, in milliseconds. */
async function documentedBoundMs(): Promise<number> {
  const text = (await readFile(new URL('../../docs/operating.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ');
  const seconds = /an unban reaches every instance within (\d+) seconds/.exec(text)?.[1];
  if (seconds === undefined) throw new Error('docs/operating.md no longer states how soon an unban reaches every instance');
  return Number(seconds) * 1000;
}

interface Answered {
  /** Milliseconds from the moment `unban` returned to the moment this request was sent. */
  sent: number;
  /** ...and to the moment its answer arrived. */
  answered: number;
  instance: number;
  /** The error code, or the status of a success. */
  outcome: string;
}

describe('unban with three warm instances of one function, through the local gateway', () => {
  it('no answer with the ban to a request sent later than the documented bound, none flips back, and no new ban follows', async () => {
    expect(await documentedBoundMs()).toBe(BAN_RECHECK_MS);
    expect(banThreshold(LIMITS)).toBe(100);
    // A day that ends during the test would admit again; wait the few seconds if it is that close.
    const dayLeftMs = 86_400_000 - (Date.now() % 86_400_000);
    if (dayLeftMs < 40_000) await sleep(dayLeftMs + 100);

    // The minute's (and day's) allowance used up, ten at a time (which instance answers does not matter here).
    for (let sent = 0; sent < LIMITS.perMinute; sent += 10) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => list()));
      expect(outcomes.map((o) => o.outcome)).toEqual(Array(10).fill('200'));
    }
    // Then refused until banned, and every instance has answered the ban at least twice in a row (from its memory).
    const bannedInARow = new Map<number, number>();
    for (let sent = 0; [...bannedInARow.values()].filter((n) => n >= 2).length < INSTANCES; sent++) {
      if (sent > 1_000) throw new Error('the customer was never banned on every instance');
      const { instance, outcome } = await list();
      expect([BANNED, 'RATE_LIMIT_EXCEEDED']).toContain(outcome);
      bannedInARow.set(instance, outcome === BANNED ? (bannedInARow.get(instance) ?? 0) + 1 : 0);
    }
    expect(new Set(served).size).toBe(INSTANCES);
    expect((await storedCounts(customer.customerId)).banUntil).toBeDefined();

    // The operator's unban: the admin CLI, against the tables the gateway's instances use.
    const unban = await petstore('unban', customer.customerId, '--json');
    const unbanned = Date.now();
    expect(unban.code).toBe(0);
    expect(JSON.parse(unban.stdout)).toMatchObject({ customerId: customer.customerId, wasBanned: true });

    const answers: Answered[] = [];
    while (Date.now() - unbanned < BAN_RECHECK_MS + AFTER_BOUND_MS) {
      const sent = Date.now() - unbanned;
      const { instance, outcome } = await list();
      answers.push({ sent, answered: Date.now() - unbanned, instance, outcome });
      await sleep(SPACING_MS);
    }

    // The bound: no request sent later than BAN_RECHECK_MS after the unban is answered with the ban.
    expect(answers.filter((a) => a.outcome === BANNED && a.sent >= BAN_RECHECK_MS)).toEqual([]);
    // Every instance was asked after the bound (or the assertions below would hold of nothing).
    for (let instance = 0; instance < INSTANCES; instance++) {
      expect(answers.some((a) => a.instance === instance && a.sent >= BAN_RECHECK_MS)).toBe(true);
    }
    // Once any instance answers without the ban, it never answers with it again; without the ban, the customer is
    // refused for its used-up allowance, nothing else.
    for (let instance = 0; instance < INSTANCES; instance++) {
      const own = answers.filter((a) => a.instance === instance);
      const firstFree = own.findIndex((a) => a.outcome !== BANNED);
      expect(own.slice(firstFree).map((a) => a.outcome)).toEqual(Array(own.length - firstFree).fill('RATE_LIMIT_EXCEEDED'));
    }
    // Still over its limit, the customer is not banned again: refusals from before the unban do not count.
    expect((await storedCounts(customer.customerId)).banUntil).toBeUndefined();

    // The figure for the operators' documentation: when the unban reached each instance on this run.
    const reached = Array.from({ length: INSTANCES }, (_, instance) => {
      const own = answers.filter((a) => a.instance === instance);
      return { lastBanned: own.filter((a) => a.outcome === BANNED).at(-1)?.sent, firstFree: own.find((a) => a.outcome !== BANNED)?.sent };
    });
    console.log(
      `unban with ${INSTANCES} warm instances (BAN_RECHECK_MS ${BAN_RECHECK_MS}): last request answered with the ban sent at ${Math.max(...reached.map((r) => r.lastBanned ?? 0))} ms after the unban returned, every instance answered without it by ${Math.max(...reached.map((r) => r.firstFree ?? Number.NaN))} ms (per instance, last banned/first free: ${reached.map((r, i) => `#${i} ${r.lastBanned ?? '-'}/${r.firstFree} ms`).join(', ')})`,
    );
  }, 60_000);
});
