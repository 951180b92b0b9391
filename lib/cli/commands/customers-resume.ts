/** `customers resume`: lifts a suspension; the keys work again within the authorizer cache TTL. Audited. */
import { CustomerIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { existingCustomer } from '../stores.js';

export const customersResume = defineCommand({
  name: 'customers resume',
  synopsis: '<customerId>',
  positionals: [1, 1],
  writes: true,
  prepare({ args, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth, audit }) => {
      const seen = await existingCustomer(auth, customerId, stage);
      if (!seen.suspendedAt) {
        return {
          json: { customerId, suspended: false, changed: false },
          text: `customer ${customerId} was not suspended: nothing changed`,
        };
      }
      await auth.resume(seen, audit.change({ action: 'resume', customerId, changes: { suspended: { from: true, to: false } } }));
      return {
        json: { customerId, suspended: false, changed: true },
        text: `customer ${customerId} is resumed (${stage}): its keys work again within the authorizer cache TTL`,
      };
    };
  },
});
