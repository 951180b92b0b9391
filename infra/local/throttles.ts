/**
 * The local model of the rate layers, exact where AWS's are best-effort: WAF's two rate rules, then after the authorizer
 * the usage plan's bucket and the stage's per method ("How throttling limit settings are applied in API Gateway").
 */
import { BlockList, isIPv6 } from 'node:net';
import { WAF_RATE_WINDOW_SECONDS } from '../../lib/api-gateway/gateway-responses.js';
import { wellFormedKeyPattern } from '../../lib/auth/keys.js';
import type { CdkJsonStage } from '../../lib/cli/cdk-json.js';
import type { Stage } from '../../lib/stacks.js';
import { ADDRESS_RATE_WINDOW_SECONDS, type UsagePlanSpec } from '../../lib/usage-plans.js';

export type RateLayer = 'keyless-rate' | 'address-rate' | 'usage-plan' | 'stage';

export type RateLayerFigures = Pick<
  CdkJsonStage,
  'throttleRateLimit' | 'throttleBurstLimit' | 'wafRateLimitPer5Minutes' | 'wafRateLimitPerIp' | 'wafAllowedAddresses'
>;

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** A WAF rate rule for one key: WAF counts every request, blocked ones included, and blocks while over the limit. */
export class WindowCount {
  private readonly seconds: [second: number, count: number][] = [];

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  countAndCheck(now: number): boolean {
    const second = Math.floor(now / 1000);
    while (this.seconds.length > 0 && (this.seconds[0]?.[0] ?? second) <= second - this.windowSeconds) this.seconds.shift();
    const over = this.seconds.reduce((sum, [, count]) => sum + count, 0) >= this.limit;
    const lastEntry = this.seconds.at(-1);
    if (lastEntry && lastEntry[0] === second) lastEntry[1] += 1;
    else this.seconds.push([second, 1]);
    return over;
  }
}

export interface RateLayers {
  webAcl(sourceIp: string, authorization: string | undefined, now?: number): RateLayer | undefined;
  gateway(
    request: { usagePlan?: UsagePlanSpec; gatewayKey?: string; method: string; resource: string },
    now?: number,
  ): RateLayer | undefined;
}

export function rateLayers(stage: Stage, figures: RateLayerFigures, clock: () => number = Date.now): RateLayers {
  const keyPattern = new RegExp(wellFormedKeyPattern(stage));
  const family = (ip: string) => (isIPv6(ip) ? 'ipv6' : 'ipv4');
  const allowed = new BlockList();
  for (const cidr of figures.wafAllowedAddresses) {
    const [address = '', prefix = ''] = cidr.split('/');
    allowed.addSubnet(address, Number(prefix), family(address));
  }
  /** Whether one more request from `ip` finds the rule over its limit (counting it). */
  const rateRule = (limit: number, windowSeconds: number) => {
    const counts = new Map<string, WindowCount>();
    return (ip: string, now: number) => {
      const count = counts.get(ip) ?? new WindowCount(limit, windowSeconds);
      counts.set(ip, count);
      return count.countAndCheck(now);
    };
  };
  const keylessOver = rateRule(figures.wafRateLimitPer5Minutes, WAF_RATE_WINDOW_SECONDS);
  const addressOver = rateRule(figures.wafRateLimitPerIp, ADDRESS_RATE_WINDOW_SECONDS);
  const plans = new Map<string, TokenBucket>();
  const methods = new Map<string, TokenBucket>();

  return {
    webAcl(sourceIp, authorization, now = clock()) {
      // Rules in priority order (infra/constructs/web-acl.ts); the first that blocks ends the evaluation.
      if (!keyPattern.test(authorization ?? '') && keylessOver(sourceIp, now)) return 'keyless-rate';
      if (!allowed.check(sourceIp, family(sourceIp)) && addressOver(sourceIp, now)) return 'address-rate';
      return undefined;
    },
    gateway({ usagePlan, gatewayKey, method, resource }, now = clock()) {
      if (usagePlan && gatewayKey) {
        // A key moved to another usage plan starts with that plan's full bucket.
        const held = plans.get(gatewayKey);
        const bucket = held?.rate === usagePlan.rateLimit ? held : new TokenBucket(usagePlan.rateLimit, usagePlan.burstLimit, now);
        plans.set(gatewayKey, bucket);
        if (!bucket.take(now)) return 'usage-plan';
      }
      // The stage's limits apply to each method ("per-API, per-stage throttling limits are applied at the API method level").
      const id = `${method} ${resource}`;
      const bucket = methods.get(id) ?? new TokenBucket(figures.throttleRateLimit, figures.throttleBurstLimit, now);
      methods.set(id, bucket);
      return bucket.take(now) ? undefined : 'stage';
    },
  };
}
