/** `usage`: a customer's two windows, its ban and its calls to deprecated operations, read without consuming quota. */
import { limitsOf } from '../../auth/store.js';
import { CustomerIdSchema, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const usage = defineCommand({
  name: 'usage',
  synopsis: '<customerId>',
  positionals: [1, 1],
  flags: {},
  prepare({ args, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth, counters, deprecatedCalls: calls }) => {
      const customer = await auth.getCustomer(customerId);
      if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}`);
      const limits = limitsOf(customer);
      const [snapshot, deprecatedCalls] = await Promise.all([counters.peek(customerId, limits, Date.now()), calls.read(customerId)]);
      const { minute, day } = snapshot.windows;
      const iso = (s: number) => new Date(s * 1000).toISOString();
      const deprecated = Object.entries(deprecatedCalls);
      return {
        json: {
          customerId,
          plan: customer.plan,
          minute: { limit: minute.limit, used: minute.limit - minute.remaining, remaining: minute.remaining, reset: minute.reset },
          day: { limit: day.limit, used: day.limit - day.remaining, remaining: day.remaining, reset: day.reset },
          ban: { active: snapshot.banUntil !== null, until: snapshot.banUntil },
          deprecatedCalls,
        },
        text: [
          `customer ${customerId} (${customer.plan}, ${stage})`,
          `  minute: ${minute.limit - minute.remaining}/${minute.limit} used, resets ${iso(minute.reset)}`,
          `  day:    ${day.limit - day.remaining}/${day.limit} used, resets ${iso(day.reset)}`,
          `  ban:    ${snapshot.banUntil ? `until ${iso(snapshot.banUntil)}` : 'none'}`,
          `  deprecated operations: ${deprecated.length ? deprecated.map(([op, c]) => `${op} ${c.count} calls, last ${c.last}`).join('; ') : 'none called'}`,
        ].join('\n'),
      };
    };
  },
});
