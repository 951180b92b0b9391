/** `unban`: lifts a customer's temporary ban before it runs out. */
import { CustomerIdSchema, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const unban = defineCommand({
  name: 'unban',
  synopsis: '<customerId>',
  positionals: [1, 1],
  flags: {},
  prepare({ args, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth, counters }) => {
      if (!(await auth.getCustomer(customerId))) throw new UsageError(`no customer "${customerId}" in ${stage}`);
      const wasBanned = await counters.unban(customerId, Date.now());
      return { json: { customerId, wasBanned }, text: wasBanned ? `ban of ${customerId} lifted` : `${customerId} was not banned` };
    };
  },
});
