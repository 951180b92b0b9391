/** `customers suspend`: every key of the customer gets 401 saying so; keys and usage are kept. Audited. */
import { CustomerIdSchema, parseReason, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { existingCustomer, suspendAudited } from '../stores.js';

export const customersSuspend = defineCommand({
  name: 'customers suspend',
  synopsis: '<customerId> [--reason TEXT]',
  positionals: [1, 1],
  writes: true,
  flags: { reason: 'string' },
  prepare({ args, flags, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    const reason = parseReason(flags.reason);
    return async ({ auth, audit }) => {
      const seen = await existingCustomer(auth, customerId, stage);
      if (seen.suspendedAt) {
        return {
          json: { customerId, suspended: true, suspendedAt: seen.suspendedAt, reason: seen.suspendedReason ?? null, changed: false },
          text: `customer ${customerId} was already suspended, since ${seen.suspendedAt}: nothing changed`,
        };
      }
      const after = await suspendAudited({ auth, audit }, seen, reason);
      return {
        json: { customerId, suspended: true, suspendedAt: after.suspendedAt, reason: after.suspendedReason ?? null, changed: true },
        text: `customer ${customerId} is suspended (${stage}): its keys get 401 within the authorizer cache TTL; keys and usage are kept`,
      };
    };
  },
});
