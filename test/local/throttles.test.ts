/**
 * The local model of the rate layers (infra/local/throttles.ts) with cdk.json's production figures, driven by a clock
 * of the test's own, so that the floods run at exactly 3 × the stage rate: made-up keys of the right form from one
 * address, a Free customer's key, and a Pro customer at its plan's rate, for 5 simulated seconds each.
 */
import { describe, expect, it } from 'vitest';
import { rateLayers, TokenBucket, WindowCount } from '../../infra/local/throttles.js';
import { generateKey } from '../../lib/auth/keys.js';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { usagePlanNamed } from '../../lib/usage-plans.js';

const FIGURES = cdkJsonStage('production');
const FREE = usagePlanNamed('free');
const PRO = usagePlanNamed('pro');
const METHOD = { method: 'GET', resource: '/categories' };

describe('the token bucket', () => {
  it('admits its burst at once, then its rate', () => {
    const bucket = new TokenBucket(2, 10, 0);
    expect(Array.from({ length: 12 }, () => bucket.take(0)).filter(Boolean)).toHaveLength(10);
    expect([bucket.take(499), bucket.take(500), bucket.take(1000), bucket.take(1000)]).toEqual([false, true, true, false]);
  });
});

describe("WAF's count over a window", () => {
  it('blocks past the limit until the window has moved past the requests it counted', () => {
    const count = new WindowCount(3, 60);
    expect([0, 1, 2, 3].map((s) => count.countAndCheck(s * 1000))).toEqual([false, false, false, true]);
    expect(count.countAndCheck(59_000)).toBe(true);
    // Counted at 2, 3 and 59 s, within the 60 s before 61 s; at 63 s only 59 and 61.
    expect(count.countAndCheck(61_000)).toBe(true);
    expect(count.countAndCheck(63_000)).toBe(false);
  });
});

describe('three clients at once, production figures, 5 simulated seconds', () => {
  it('lets one address with made-up keys past WAF only up to its limit, a flooding Free customer only up to its bucket, and never refuses a Pro customer at its plan rate', () => {
    let now = 1_000_000;
    const layers = rateLayers('production', FIGURES, () => now);
    const flood = 3 * FIGURES.throttleRateLimit; // a second
    const counts = { madeUpPast: 0, madeUpBlocked: 0, freePast: 0, freeThrottled: 0, proAdmitted: 0, proRefused: 0 };
    for (let tick = 0; tick < 5 * flood; tick += 1) {
      now = 1_000_000 + (tick * 1000) / flood;
      if (layers.webAcl('203.0.113.7', `Bearer ${generateKey('production')}`)) counts.madeUpBlocked += 1;
      else counts.madeUpPast += 1; // the authorizer refuses it: it never reaches a throttle
      if (layers.webAcl('198.51.100.9', 'Bearer pet_live_free') || layers.gateway({ usagePlan: FREE, gatewayKey: 'free-key', ...METHOD }))
        counts.freeThrottled += 1;
      else counts.freePast += 1;
      // Pro: 300 a minute is one request every 200 ms.
      if (tick % (flood / 5) === 0) {
        const refused =
          layers.webAcl('192.0.2.4', 'Bearer pet_live_pro') ?? layers.gateway({ usagePlan: PRO, gatewayKey: 'pro-key', ...METHOD });
        if (refused) counts.proRefused += 1;
        else counts.proAdmitted += 1;
      }
    }
    expect(counts.madeUpPast).toBe(FIGURES.wafRateLimitPerIp);
    expect(counts.madeUpBlocked).toBe(5 * flood - FIGURES.wafRateLimitPerIp);
    // The Free flood's own address limit and its bucket: its burst, then 2 a second.
    expect(counts.freePast).toBeLessThanOrEqual((FREE?.burstLimit ?? 0) + 5 * (FREE?.rateLimit ?? 0));
    expect(counts.freePast).toBeGreaterThanOrEqual(FREE?.burstLimit ?? 0);
    expect(counts).toMatchObject({ proAdmitted: 25, proRefused: 0 });
  });

  it('never counts an allow-listed address in the per-address rule', () => {
    const layers = rateLayers('production', { ...FIGURES, wafAllowedAddresses: ['203.0.113.0/24'] }, () => 0);
    const blocked = Array.from({ length: FIGURES.wafRateLimitPerIp + 10 }, () =>
      layers.webAcl('203.0.113.7', `Bearer ${generateKey('production')}`),
    );
    expect(blocked.filter(Boolean)).toHaveLength(0);
  });
});
