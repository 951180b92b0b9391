/**
 * What every layer in front of the rate limiter admits, per plan, computed from the synthesized templates
 * (test/infra/envelope.ts): no layer may refuse a request that the customer's plan allows, Enterprise included at
 * the largest limit the admin CLI sells on the stage. The figures are printed:
 * `npx vitest run test/infra/envelope.test.ts`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PLAN_NAMES } from '../../lib/plans.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { ASSUMED_INVOCATION_SECONDS, type LayerFigures, layerFigures, type PlanEnvelope, planEnvelopes } from './envelope.js';
import { perStage, synthApp } from './synth-app.js';

let figures: Record<Stage, LayerFigures>;
let envelopes: Record<Stage, PlanEnvelope[]>;

beforeAll(() => {
  const app = synthApp();
  figures = perStage((stage) => layerFigures(app.template(stage).toJSON(), stage));
  envelopes = perStage((stage) => planEnvelopes(figures[stage], PLAN_NAMES));
}, 120_000);

const shown = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : 'unbounded');

/** API Gateway's default throttle quota per account and region (Service Quotas L-8A5B8E43), shared by every API and stage. */
const API_GATEWAY_ACCOUNT_QUOTA_PER_SECOND = 10_000;

it("fits both stages' throttles in API Gateway's default account quota, should they share an account and region", () => {
  const total = STAGES.reduce((sum, stage) => sum + figures[stage].throttle.rateLimit, 0);
  expect(total).toBeLessThanOrEqual(API_GATEWAY_ACCOUNT_QUOTA_PER_SECOND);
});

describe.each(STAGES)('the %s stage', (stage) => {
  it.each(PLAN_NAMES)('admits everything the %s plan sells, at every layer', (plan) => {
    const envelope = envelopes[stage].find((e) => e.plan === plan);
    expect(envelope?.everyLayerAdmitsThePlan, JSON.stringify(envelope)).toBe(true);
    expect(envelope?.admittedPerMinute).toBe(envelope?.limits.perMinute);
  });

  it('counts every request per address, made-up keys included, yet admits from one address what a Business customer sends at the window’s edges', () => {
    const address = figures[stage].wafPerAddress;
    expect(address).toBeDefined();
    expect(((address?.limit ?? 0) * 60) / (address?.windowSeconds ?? 1)).toBeGreaterThanOrEqual(3 * 1_000);
    for (const e of envelopes[stage]) expect(e.needsAllowList).toBe(e.plan === 'enterprise' && e.limits.perMinute > 1_000);
  });

  it('prints the figures', () => {
    const f = figures[stage];
    console.log(
      [
        `${stage}: stage throttle ${f.throttle.rateLimit}/s per method (burst ${f.throttle.burstLimit}); ` +
          `Lambda ${f.lambdaConcurrency.perFunction} concurrent per function (${f.lambdaConcurrency.reserved ? 'reserved' : "the account's shared pool, default quota"}) ` +
          `at ${ASSUMED_INVOCATION_SECONDS * 1000} ms each; counters table on demand, ${shown(f.countersTableWritesPerSecond)} writes/s when new; ` +
          `WAF: ${f.wafPerIpKeyless.limit} requests without a key per IP per ${f.wafPerIpKeyless.windowSeconds} s, ` +
          `${f.wafPerAddress?.limit} requests of any kind per IP per ${f.wafPerAddress?.windowSeconds} s`,
      ].join('\n'),
    );
    console.table(
      envelopes[stage].map((e) => ({
        plan: e.plan,
        'plan /min': shown(e.limits.perMinute),
        'WAF /min (one IP)': e.needsAllowList ? 'allow-listed' : shown(e.layers.waf),
        'usage plan /min': shown(e.layers.usagePlan),
        'throttle /min': shown(e.layers.stageThrottle),
        'Lambda /min': shown(e.layers.lambda),
        'counter items /min': shown(e.layers.dynamoItems),
        'counters table /min': shown(e.layers.countersTable),
        'admitted /min, one customer or one IP': shown(e.admittedPerMinute),
      })),
    );
    expect(envelopes[stage]).toHaveLength(PLAN_NAMES.length);
  });
});
