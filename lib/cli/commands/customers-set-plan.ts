/** `customers set-plan`: creates a customer or changes its plan; Enterprise takes its own two limits. Audited. */
import { changed } from '../../audit/trail.js';
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { PLAN_NAMES } from '../../plans.js';
import { CustomerIdSchema, parseLimit, parsePlan, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const customersSetPlan = defineCommand({
  name: 'customers set-plan',
  synopsis: `<customerId> <${PLAN_NAMES.join('|')}> [--per-minute N --per-day N]`,
  positionals: [2, 2],
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
    return async ({ auth, audit }) => {
      const now = new Date(nowMs());
      const seen = (await auth.getCustomer(customerId)) ?? null;
      const limits = limitsOf({ plan, ...wanted });
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
