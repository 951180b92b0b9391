/** `keys create`: issues a key for an existing customer and prints it, the only time it is ever shown. */
import { CustomerIdSchema, parseKeyName, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const keysCreate = defineCommand({
  name: 'keys create',
  synopsis: '<customerId> [--name LABEL]',
  positionals: [1, 1],
  flags: { name: 'string' },
  prepare({ args, flags, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    const name = parseKeyName(flags.name);
    return async ({ auth }) => {
      const customer = await auth.getCustomer(customerId);
      if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}: create it with customers set-plan first`);
      const { apiKey, record } = await auth.createKey(customerId, stage, name);
      return {
        json: { apiKey, keyId: record.keyId, customerId, plan: customer.plan, stage },
        text: `${apiKey}\n\nkey ${record.keyId} for customer ${customerId} (${customer.plan}, ${stage}).\nThis is the only time the key is shown: only its SHA-256 is stored.`,
      };
    };
  },
});
