/** `customers show`: one customer's plan, limits, suspension, keys, today's usage and ban, read without writing. */
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { dayStartOf } from '../../usage/days.js';
import { CustomerIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { keyLines, keyRow } from '../key-rows.js';
import { existingCustomer } from '../stores.js';

export const customersShow = defineCommand({
  name: 'customers show',
  synopsis: '<customerId>',
  positionals: [1, 1],
  writes: false,
  prepare({ args, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth, counters, usage }) => {
      const customer = await existingCustomer(auth, customerId, stage);
      const now = nowMs();
      const limits = limitsOf(customer);
      const today = dayStartOf(Math.floor(now / 1000));
      const [keys, snapshot, [day]] = await Promise.all([
        auth.listKeys(customerId),
        counters.peek(customerId, limits, now),
        usage.days(customerId, today, today),
      ]);
      const rows = keys.map((k) => keyRow(k, now));
      const { minute } = snapshot.windows;
      const iso = (s: number) => new Date(s * 1000).toISOString();
      const suspended = customer.suspendedAt ? { at: customer.suspendedAt, reason: customer.suspendedReason ?? null } : null;
      return {
        json: {
          customerId,
          plan: customer.plan,
          ...limits,
          stage,
          createdAt: customer.createdAt,
          suspended,
          keys: rows,
          today: { date: day?.date, admitted: day?.admitted ?? 0, refused: day?.refused ?? 0, minuteUsed: minute.limit - minute.remaining },
          ban: { active: snapshot.banUntil !== null, until: snapshot.banUntil },
        },
        text: [
          `customer ${customerId} (${stage}), since ${customer.createdAt}`,
          `  plan:      ${customer.plan}: ${limits.perMinute} per minute, ${limits.perDay} per day`,
          `  state:     ${suspended ? `suspended since ${suspended.at}${suspended.reason ? ` (${suspended.reason})` : ''}` : 'active'}`,
          `  today:     ${day?.admitted ?? 0} admitted, ${day?.refused ?? 0} refused (${day?.date}); this minute ${minute.limit - minute.remaining}/${minute.limit}`,
          `  ban:       ${snapshot.banUntil ? `until ${iso(snapshot.banUntil)}` : 'none'}`,
          '',
          keyLines(rows),
        ].join('\n'),
      };
    };
  },
});
