/**
 * The local production gateway with cdk.json's production figures (infra/local/throttles.ts), flooded for a few
 * seconds on loopback: one address sends made-up keys of the right form, another a Free customer's real key, each
 * at up to 3 × the stage rate, while a Pro customer sends at its plan's rate from a third address. The local gateway
 * sees each client's source address (how many requests a second the floods reach on the machine is printed, not
 * asserted; throttles.test.ts drives the same layers at exactly 3 × the stage rate with a clock of its own); Linux routes all of 127.0.0.0/8 to the loopback interface, so each flood binds
 * a loopback address of its own (127.0.0.2, …) and the gateway keeps listening on 127.0.0.1. Loops are bounded in
 * count and time; the assertions are counts, not timings.
 */
import { type Agent, Agent as HttpAgent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBase62 } from '../../lib/auth/keys.js';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { usagePlanNamed } from '../../lib/usage-plans.js';
import { makeCustomer, type TestCustomer } from '../support/customers.js';

// As production deploys it: API Gateway caches the authorizer's answer for 60 s (read when the authorizer loads).
// A log line per refused key would cost more than the refusal: warnings only.
process.env.AUTHORIZER_CACHE_TTL = '60';
process.env.LOG_LEVEL = 'WARN';
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
const { startGateway } = await import('../../infra/local/gateway.js');
const { rateLayers } = await import('../../infra/local/throttles.js');

const FIGURES = cdkJsonStage('production');
const SECONDS = 3;
/** Each flood's requests: 3 × the stage rate for SECONDS, the most it may send. */
const FLOOD_MAX = 3 * FIGURES.throttleRateLimit * SECONDS;
const IN_FLIGHT = 48;

type Gateway = Awaited<ReturnType<typeof startGateway>>;
let gateway: Gateway;
let free: TestCustomer;
let pro: TestCustomer;
const refusedBy = new Map<string, number>();

beforeAll(async () => {
  [free, pro] = await Promise.all([makeCustomer('free'), makeCustomer('pro')]);
  gateway = await startGateway(0, {
    preload: true,
    rateLayers: rateLayers('production', FIGURES),
    onRefused: (layer) => refusedBy.set(layer, (refusedBy.get(layer) ?? 0) + 1),
  });
  // Warm: the authorizer's answers cached and the function's first call made, as on a stage already serving.
  const agent = new HttpAgent({ localAddress: '127.0.0.1' });
  for (const customer of [free, pro]) expect(await get(agent, '/categories', customer.authorization)).toBe(200);
  agent.destroy();
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

function get(agent: Agent, path: string, authorization: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.url}${path}`, { agent, headers: { authorization } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends until `max` requests or `until`, IN_FLIGHT at a time, from `from`; the statuses by count. */
async function flood(from: string, authorization: () => string, max: number, until: number): Promise<Map<number, number>> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: IN_FLIGHT, localAddress: from });
  const statuses = new Map<number, number>();
  let sent = 0;
  const worker = async () => {
    while (sent < max && Date.now() < until) {
      sent += 1;
      const status = await get(agent, '/categories', authorization());
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  agent.destroy();
  return statuses;
}

/** The Pro customer at its plan's steady rate (one request every 60/perMinute seconds), `count` requests. */
async function steady(from: string, customer: TestCustomer, perMinute: number, count: number): Promise<Map<number, number>> {
  const agent = new HttpAgent({ keepAlive: true, localAddress: from });
  const statuses = new Map<number, number>();
  for (let next = Date.now(), sent = 0; sent < count; next += 60_000 / perMinute, sent += 1) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    const status = await get(agent, '/categories', customer.authorization);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  agent.destroy();
  return statuses;
}

const total = (statuses: Map<number, number>) => [...statuses.values()].reduce((a, b) => a + b, 0);

it('keeps a Pro customer at its plan rate whole while one address floods made-up keys and a Free customer floods its own', async () => {
  const started = Date.now();
  const until = started + SECONDS * 1000;
  const [madeUp, freeFlood, proSteady] = await Promise.all([
    flood('127.0.0.2', () => `Bearer pet_live_${randomBase62(36)}`, FLOOD_MAX, until),
    flood('127.0.0.3', () => free.authorization, FLOOD_MAX, until),
    steady('127.0.0.4', pro, 300, (SECONDS * 300) / 60),
  ]);
  const elapsed = (Date.now() - started) / 1000;
  console.log(
    `in ${elapsed.toFixed(1)} s: made-up keys ${total(madeUp)} sent (${Math.round(total(madeUp) / elapsed)}/s) ${JSON.stringify([...madeUp])}; ` +
      `Free ${total(freeFlood)} sent (${Math.round(total(freeFlood) / elapsed)}/s) ${JSON.stringify([...freeFlood])}; ` +
      `Pro ${JSON.stringify([...proSteady])}; refused by ${JSON.stringify([...refusedBy])}`,
  );

  // The Pro customer: only 200s.
  expect([...proSteady.keys()]).toEqual([200]);
  expect(total(proSteady)).toBe((SECONDS * 300) / 60);
  // Nothing was refused by the stage throttle: no flood reached it beyond what its own layer let through.
  expect(refusedBy.get('stage') ?? 0).toBe(0);

  // Made-up keys: past WAF at most the per-address limit, the rest 429 from WAF; what passed is 401.
  const pastWaf = total(madeUp) - (madeUp.get(429) ?? 0);
  expect(pastWaf).toBeLessThanOrEqual(FIGURES.wafRateLimitPerIp);
  expect(madeUp.get(401)).toBe(pastWaf);
  // Each flooding address is refused by the per-address rule past its limit (a fast machine takes the Free flood there too).
  const overWaf = (sent: number) => Math.max(0, sent - FIGURES.wafRateLimitPerIp);
  expect(refusedBy.get('address-rate') ?? 0).toBe(overWaf(total(madeUp)) + overWaf(total(freeFlood)));

  // The Free customer: past its usage plan at most its bucket (burst, and rate × elapsed), the rest THROTTLED there.
  const plan = usagePlanNamed('free');
  const pastPlan = total(freeFlood) - overWaf(total(freeFlood)) - (refusedBy.get('usage-plan') ?? 0);
  expect(pastPlan).toBeLessThanOrEqual((plan?.burstLimit ?? 0) + (plan?.rateLimit ?? 0) * (elapsed + 1));
  expect(freeFlood.get(200) ?? 0).toBeLessThanOrEqual(2 * 60);
}, 120_000);
