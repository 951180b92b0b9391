/** `customers set-plan`: creates a customer or changes its plan and usage plan, audited, within what the stage admits. */
import { changed } from '../../audit/trail.js';
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { CUSTOM_LIMIT_MAX, type Limits, PLAN_NAMES, type Plan } from '../../plans.js';
import { ITEM_CAPACITY_PER_MINUTE, MAX_SHARDS, PER_MINUTE_MAX } from '../../rate-limit/shards.js';
import { type Stage, stageCapacity } from '../../stacks.js';
import { addressNeedPer60s, largestPerMinuteUnder, usagePlanFor } from '../../usage-plans.js';
import { CustomerIdSchema, parseLimit, parsePlan, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import type { Target } from '../targets.js';

/** Refuses limits above what the stage's throttle admits for one customer or the rate limiter carries, naming which. */
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

/** An Enterprise limit over the web ACL's per-address limit: refused unless `--allow-listed`, then noted. */
export function addressCeilingNote(plan: Plan, limits: Limits, stage: Stage, target: Target, allowListed: boolean): string | undefined {
  if (plan !== 'enterprise') return undefined;
  if ('unknown' in target.addressLimit)
    throw new Error(`cannot tell what one address may send to the ${stage} stage: ${target.addressLimit.unknown}`);
  const { perIp, source } = target.addressLimit;
  const need = addressNeedPer60s(limits.perMinute);
  if (need <= perIp) return undefined;
  const over =
    `--per-minute ${limits.perMinute} means up to ${need} requests in 60 s from one address, above the ${stage} web ACL's ` +
    `${perIp} per address (${source}; enough for ${largestPerMinuteUnder(perIp)} a minute)`;
  if (!allowListed) {
    throw new UsageError(
      `${over}: add the customer's egress addresses to wafAllowedAddresses in cdk.json and deploy, then run this again with --allow-listed (or sell at most ${largestPerMinuteUnder(perIp)} a minute)`,
    );
  }
  return `${over}: sold with --allow-listed, so the customer's egress addresses must be in wafAllowedAddresses (cdk.json) of the deployed ${stage} stack, or its clients are refused past ${perIp} requests a minute per address`;
}

export const customersSetPlan = defineCommand({
  name: 'customers set-plan',
  synopsis: `<customerId> <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N [--allow-listed]]`,
  positionals: [2, 2],
  writes: true,
  flags: { 'per-minute': 'string', 'per-day': 'string', 'allow-listed': 'boolean' },
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
    if (plan !== 'enterprise' && flags['allow-listed']) throw new UsageError('--allow-listed is for the enterprise plan only');
    return async ({ auth, audit, gateway }, target) => {
      requireCapacity(plan, limits, stage, target.throttle);
      const note = addressCeilingNote(plan, limits, stage, target, flags['allow-listed'] === true);
      const now = new Date(nowMs());
      const seen = (await auth.getCustomer(customerId)) ?? null;
      const changes = changed(seen ? { plan: seen.plan, ...limitsOf(seen) } : {}, { plan, ...limits });
      const usagePlan = usagePlanFor(plan, limits).name;
      const placed = seen?.gatewayKey !== undefined && seen.usagePlan === usagePlan;
      if (Object.keys(changes).length || !placed) {
        // API Gateway first: a failure after it leaves the record as it was, and running the command again finishes.
        const key = await gateway.place(seen ?? { customerId }, usagePlan);
        await auth.setPlan(customerId, plan, wanted, {
          now,
          seen,
          gateway: key,
          also: Object.keys(changes).length ? [audit.entry({ action: 'plan-change', customerId, changes }, now)] : [],
        });
      }
      return {
        json: { customerId, plan, ...limits, stage, usagePlan },
        text: `customer ${customerId} is on the ${plan} plan: ${limits.perMinute} requests per minute, ${limits.perDay} per day, usage plan ${usagePlan} (${stage})${Object.keys(changes).length || !placed ? '' : '; nothing changed'}`,
        ...(note ? { note } : {}),
      };
    };
  },
});
