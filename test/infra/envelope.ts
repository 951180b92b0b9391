/**
 * The largest traffic each layer in front of the rate limiter admits, read from a synthesized template: the WAF
 * web ACL (evaluated as WAF does, test/support/waf-rules.ts), the usage plans, the stage throttle, Lambda concurrency and the
 * DynamoDB items a customer is counted on. Per plan, what one customer and one IP can be admitted is the smallest
 * of them and of the plan's own limit. `npx vitest run test/infra/envelope.test.ts` prints the figures.
 *
 * Two figures are not in the template, and are stated here as assumptions:
 * - Lambda's concurrency pool when no concurrency is reserved: the account's regional quota, 1,000 by default
 *   (Service Quotas L-B99A9384; new accounts start lower), shared by both stages of one account and everything else
 *   in it; and AWS keeps 100 of it unreserved.
 * - How long an invocation holds its concurrency: ASSUMED_INVOCATION_SECONDS, for a warm function making one or two
 *   DynamoDB round trips in its region. Replace it with the functions' p99 Duration once deployed; a DynamoDB
 *   outage holds an instance up to the operation's time budget (8.5 s), when far fewer requests fit.
 */
import * as v from 'valibot';
import { generateKey } from '../../lib/auth/keys.js';
import { limitsOf } from '../../lib/auth/records.js';
import type { Limits, Plan } from '../../lib/plans.js';
import { ITEM_CAPACITY_PER_MINUTE, shardCount } from '../../lib/rate-limit/shards.js';
import { type Stage, stageCapacity } from '../../lib/stacks.js';
import { addressNeedPer60s, largestPerMinuteUnder, usagePlanFor } from '../../lib/usage-plans.js';
import { evaluateWebAcl } from '../support/waf-rules.js';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON; the figures are read from it.
type Json = any;

export const ACCOUNT_CONCURRENCY_DEFAULT = 1_000;
export const ASSUMED_INVOCATION_SECONDS = 0.05;
/** Write request units a new on-demand table serves at once (twice its initial "previous peak" of 2,000). */
export const NEW_ON_DEMAND_TABLE_WRITES_PER_SECOND = 4_000;

export interface LayerFigures {
  /** Requests a minute WAF admits from one IP that carry this customer's key (Infinity: none is counted). */
  wafPerIpKeyed: number;
  /** The per-address rule that counts requests with a well-formed key, and whether it leaves allow-listed addresses alone. */
  wafPerAddress?: { limit: number; windowSeconds: number; allowList: boolean };
  /** The usage plans by their name within the stage (petstore-<stage>-<name>): token bucket, and whether a quota is set. */
  usagePlans: Record<string, { rateLimit: number; burstLimit: number; quota: boolean }>;
  /** Requests WAF admits from one IP without a well-formed key, in its window. */
  wafPerIpKeyless: { limit: number; windowSeconds: number };
  /** The stage throttle: steady requests a second per method, and the burst. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Requests a minute one operation's function admits at ASSUMED_INVOCATION_SECONDS each. */
  lambdaPerMinute: number;
  /** Whether that comes from reserved concurrency or the account's shared pool. */
  lambdaConcurrency: { perFunction: number; reserved: boolean };
  /** The counters table's writes a second when new (on-demand), every admitted request being one write. */
  countersTableWritesPerSecond: number;
}

const resourcesOf = (template: Json, type: string): Json[] => Object.values(template.Resources).filter((r: Json) => r.Type === type);

export function layerFigures(template: Json, stage: Stage): LayerFigures {
  const acls = resourcesOf(template, 'AWS::WAFv2::WebACL');
  if (acls.length !== 1) throw new Error(`expected one web ACL, found ${acls.length}`);
  const acl = acls[0].Properties;
  const keyed = evaluateWebAcl(acl, { headers: { Authorization: `Bearer ${generateKey(stage)}` }, bodyBytes: 200 });
  const keyless = evaluateWebAcl(acl, { headers: {}, bodyBytes: 0 }).countedBy[0];
  if (!keyless) throw new Error('no rate rule counts requests without a key');
  const perMinute = (rule: { limit: number; windowSeconds: number }) => (rule.limit * 60) / rule.windowSeconds;

  const stageResource = resourcesOf(template, 'AWS::ApiGateway::Stage')[0]?.Properties;
  const settings = (stageResource?.MethodSettings ?? []).find((m: Json) => m.ResourcePath === '/*' && m.HttpMethod === '*');
  if (!settings?.ThrottlingRateLimit) throw new Error('the stage has no throttle');

  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  const reserved = functions.map((f) => v.parse(v.optional(v.number()), f.Properties.ReservedConcurrentExecutions));
  const reservedByAll = reserved.filter((r) => r !== undefined);
  const smallestReserved = reservedByAll.length === reserved.length ? Math.min(...reservedByAll) : undefined;
  const perFunction = smallestReserved ?? ACCOUNT_CONCURRENCY_DEFAULT;

  const tables = resourcesOf(template, 'AWS::DynamoDB::Table');
  const onDemand = tables.every((t) => t.Properties.BillingMode === 'PAY_PER_REQUEST');
  const capped = tables
    .map((t) => v.parse(v.optional(v.number()), t.Properties.OnDemandThroughput?.MaxWriteRequestUnits))
    .filter((c) => c !== undefined);
  if (!onDemand) throw new Error('a table with provisioned capacity: compute its writes from its WriteCapacityUnits');

  const addressRule = keyed.countedBy.find((rule) => rule.name === 'address-rate');
  const addressStatement = (acl.Rules as Json[]).find((r) => r.Name === 'address-rate')?.Statement?.RateBasedStatement;
  const usagePlans: LayerFigures['usagePlans'] = {};
  for (const plan of resourcesOf(template, 'AWS::ApiGateway::UsagePlan')) {
    const name = String(plan.Properties.UsagePlanName).replace(`petstore-${stage}-`, '');
    usagePlans[name] = {
      rateLimit: plan.Properties.Throttle.RateLimit,
      burstLimit: plan.Properties.Throttle.BurstLimit,
      quota: plan.Properties.Quota !== undefined,
    };
  }
  return {
    wafPerIpKeyed: keyed.countedBy.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...keyed.countedBy.map(perMinute)),
    ...(addressRule
      ? {
          wafPerAddress: {
            limit: addressRule.limit,
            windowSeconds: addressRule.windowSeconds,
            allowList: addressStatement?.ScopeDownStatement !== undefined,
          },
        }
      : {}),
    usagePlans,
    wafPerIpKeyless: { limit: keyless.limit, windowSeconds: keyless.windowSeconds },
    throttle: { rateLimit: settings.ThrottlingRateLimit, burstLimit: settings.ThrottlingBurstLimit },
    lambdaPerMinute: Math.floor((perFunction / ASSUMED_INVOCATION_SECONDS) * 60),
    lambdaConcurrency: { perFunction, reserved: smallestReserved !== undefined },
    countersTableWritesPerSecond: Math.min(NEW_ON_DEMAND_TABLE_WRITES_PER_SECOND, ...capped),
  };
}

export interface PlanEnvelope {
  plan: Plan;
  limits: Limits;
  /**
   * Requests a minute each layer admits for this customer: `waf` from one address (what it may honestly send at the
   * window's edges counts 3 × a minute, lib/usage-plans.ts), unbounded for an Enterprise limit that needs the
   * allow-list (its addresses are then not counted); `usagePlan` its usage plan's steady rate.
   */
  layers: { waf: number; usagePlan: number; stageThrottle: number; lambda: number; dynamoItems: number; countersTable: number };
  /** An Enterprise limit above what one address may send: sold only with its egress addresses allow-listed. */
  needsAllowList: boolean;
  /** The smallest of the layers and the plan: what one customer, and one IP sending for it, is admitted a minute. */
  admittedPerMinute: number;
  /** Whether every layer admits at least what the plan sells. */
  everyLayerAdmitsThePlan: boolean;
}

/** Per plan, Enterprise at the largest limit the CLI sells on this stage (its throttle × 60 a minute). */
export function planEnvelopes(figures: LayerFigures, plans: readonly Plan[]): PlanEnvelope[] {
  return plans.map((plan) => {
    const limits = plan === 'enterprise' ? stageCapacity(figures.throttle.rateLimit) : limitsOf({ plan });
    const address = figures.wafPerAddress;
    const addressPerMinute = address ? largestPerMinuteUnder((address.limit * 60) / address.windowSeconds) : Number.POSITIVE_INFINITY;
    const needsAllowList = address !== undefined && addressNeedPer60s(limits.perMinute) > (address.limit * 60) / address.windowSeconds;
    // The CLI sells such a limit only with --allow-listed (the customer's addresses in cdk.json's wafAllowedAddresses).
    if (needsAllowList && plan !== 'enterprise') throw new Error(`the ${plan} plan needs more than one address may send`);
    const usagePlan = figures.usagePlans[usagePlanFor(plan, limits).name];
    if (!usagePlan) throw new Error(`no usage plan ${usagePlanFor(plan, limits).name}`);
    const layers = {
      waf: needsAllowList ? Number.POSITIVE_INFINITY : Math.min(figures.wafPerIpKeyed, addressPerMinute),
      usagePlan: usagePlan.rateLimit * 60,
      stageThrottle: figures.throttle.rateLimit * 60,
      lambda: figures.lambdaPerMinute,
      dynamoItems: shardCount(limits) * ITEM_CAPACITY_PER_MINUTE,
      countersTable: figures.countersTableWritesPerSecond * 60,
    };
    const smallestLayer = Math.min(...Object.values(layers));
    return {
      plan,
      limits,
      layers,
      admittedPerMinute: Math.min(limits.perMinute, smallestLayer),
      everyLayerAdmitsThePlan: smallestLayer >= limits.perMinute,
      needsAllowList,
    };
  });
}
