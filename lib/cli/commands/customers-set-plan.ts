/**
 * `customers set-plan`: creates a customer or changes its plan; Enterprise takes its own two limits. Audited. It
 * sells no limit the stage cannot admit for one customer: its throttle (cdk.json locally, the stack's output with
 * --aws) decides, so a limit above it is refused before anything is written.
 */
import { changed } from '../../audit/trail.js';
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { type Limits, PLAN_NAMES, type Plan } from '../../plans.js';
import { type Stage, stageCapacity } from '../../stacks.js';
import { CustomerIdSchema, parseLimit, parsePlan, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import type { Target } from '../targets.js';

/** Refuses limits above what the stage's throttle admits for one customer; the message says how to sell more. */
function requireCapacity(plan: Plan, limits: Limits, stage: Stage, throttle: Target['throttle']): void {
  if ('unknown' in throttle) throw new Error(`cannot tell what the ${stage} stage admits for one customer: ${throttle.unknown}`);
  const capacity = stageCapacity(throttle.rateLimit);
  const over =
    limits.perMinute > capacity.perMinute
      ? `${limits.perMinute} requests a minute is more than the ${stage} stage admits for one customer, ${capacity.perMinute} a minute`
      : limits.perDay > capacity.perDay
        ? `${limits.perDay} requests a day is more than the ${stage} stage admits for one customer, ${capacity.perDay} a day`
        : undefined;
  if (over) {
    throw new UsageError(
      `the ${plan} plan's ${over}: its throttle is ${throttle.rateLimit} requests a second (${throttle.source}). ` +
        `To sell more, raise throttleRateLimit in cdk.json (and the account's API Gateway throttle quota with it) and deploy first`,
    );
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
    if (perMinute !== undefined && perDay !== undefined && perMinute > perDay) {
      throw new UsageError(`--per-minute (${perMinute}) cannot exceed --per-day (${perDay})`);
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
