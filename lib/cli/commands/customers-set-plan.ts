/**
 * `customers set-plan`: creates a customer or changes its plan; Enterprise takes its own two limits. Audited. It
 * sells no limit the stage cannot admit for one customer: its throttle (cdk.json locally, the stack's output with
 * --aws) decides, so a limit above it is refused before anything is written.
 */
import { changed } from '../../audit/trail.js';
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { CUSTOM_LIMIT_MAX, type Limits, PLAN_NAMES, type Plan } from '../../plans.js';
import { ITEM_CAPACITY_PER_MINUTE, MAX_SHARDS, PER_MINUTE_MAX } from '../../rate-limit/shards.js';
import { type Stage, stageCapacity } from '../../stacks.js';
import { CustomerIdSchema, parseLimit, parsePlan, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import type { Target } from '../targets.js';

/**
 * Refuses limits above the smaller of two ceilings, naming it: what the stage's throttle admits for one customer
 * (the message says how to sell more) and what the rate limiter carries. Then, with both in range, a minute's limit
 * above the day's.
 */
export function requireCapacity(plan: Plan, limits: Limits, stage: Stage, throttle: Target['throttle']): void {
  if ('unknown' in throttle) throw new Error(`cannot tell what the ${stage} stage admits for one customer: ${throttle.unknown}`);
  const capacity = stageCapacity(throttle.rateLimit);
  const limiter = {
    perMinute: `the most the rate limiter delivers (${MAX_SHARDS} counter items of ${ITEM_CAPACITY_PER_MINUTE} requests per minute each; see docs/operating.md, "Plans and Enterprise limits")`,
    perDay: 'the most the rate limiter counts',
  };
  for (const [window, flag, max, per] of [
    ['perMinute', '--per-minute', PER_MINUTE_MAX, 'minute'],
    ['perDay', '--per-day', CUSTOM_LIMIT_MAX, 'day'],
  ] as const) {
    const wanted = limits[window];
    if (wanted > capacity[window] && capacity[window] <= max) {
      const over =
        plan === 'enterprise'
          ? `${flag} must be at most what the ${stage} stage admits for one customer, ${capacity[window]} a ${per}`
          : `the ${plan} plan's ${wanted} requests a ${per} is more than the ${stage} stage admits for one customer, ${capacity[window]} a ${per}`;
      throw new UsageError(
        `${over}: its throttle is ${throttle.rateLimit} requests a second (${throttle.source}). ` +
          `To sell more, raise throttleRateLimit in cdk.json (and the account's API Gateway throttle quota with it) and deploy first`,
      );
    }
    if (wanted > max) throw new UsageError(`${flag} must be at most ${max}, ${limiter[window]}`);
  }
  if (limits.perMinute > limits.perDay) {
    throw new UsageError(`--per-minute (${limits.perMinute}) cannot exceed --per-day (${limits.perDay})`);
  }
}

export const customersSetPlan = defineCommand({
  name: 'customers set-plan',
  synopsis: `<customerId> <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]`,
  positionals: [2, 2],
  writes: true,
  flags: { 'per-minute': 'string', 'per-day': 'string' },
  prepare({ args, flags, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    const plan = parsePlan(args[1]);
    const perMinute = parseLimit(flags['per-minute'], '--per-minute');
    const perDay = parseLimit(flags['per-day'], '--per-day');
    if (plan === 'enterprise' && (perMinute === undefined || perDay === undefined)) {
      throw new UsageError('the enterprise plan needs both --per-minute and --per-day');
    }
    if (plan !== 'enterprise' && (perMinute !== undefined || perDay !== undefined)) {
      throw new UsageError(`--per-minute and --per-day are for the enterprise plan only; the ${plan} plan has fixed limits`);
    }
    const wanted = perMinute && perDay ? { perMinute, perDay } : undefined;
    const limits = limitsOf({ plan, ...wanted });
    return async ({ auth, audit }, target) => {
      requireCapacity(plan, limits, stage, target.throttle);
      const now = new Date(nowMs());
      const seen = (await auth.getCustomer(customerId)) ?? null;
      const changes = changed(seen ? { plan: seen.plan, ...limitsOf(seen) } : {}, { plan, ...limits });
      if (Object.keys(changes).length) {
        await auth.setPlan(customerId, plan, wanted, {
          now,
          seen,
          also: [audit.entry({ action: 'plan-change', customerId, changes }, now)],
        });
      }
      return {
        json: { customerId, plan, ...limits, stage },
        text: `customer ${customerId} is on the ${plan} plan: ${limits.perMinute} requests per minute, ${limits.perDay} per day (${stage})${Object.keys(changes).length ? '' : '; nothing changed'}`,
      };
    };
  },
});
