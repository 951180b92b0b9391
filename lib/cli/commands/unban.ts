/** `unban`: lifts a customer's temporary ban before it runs out, audited by a record written right after. */
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { CustomerIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { existingCustomer } from '../stores.js';

export const unban = defineCommand({
  name: 'unban',
  synopsis: '<customerId>',
  positionals: [1, 1],
  writes: true,
  prepare({ args, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth, counters, bans, audit }) => {
      const customer = await existingCustomer(auth, customerId, stage);
      const now = nowMs();
      const { banUntil } = await counters.peek(customerId, limitsOf(customer), now);
      const wasBanned = await bans.unban(customerId, now);
      if (wasBanned) {
        // The ban is the rate limiter's item, outside any transaction of ours: its record follows the unban.
        const until = banUntil === null ? 'running' : new Date(banUntil * 1000).toISOString();
        try {
          await audit.record({ action: 'unban', customerId, changes: { banUntil: { from: until, to: null } } }, new Date(now));
        } catch (error) {
          throw new Error(
            `the ban of ${customerId} is lifted, but its audit record could not be written: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      return { json: { customerId, wasBanned }, text: wasBanned ? `ban of ${customerId} lifted` : `${customerId} was not banned` };
    };
  },
});
