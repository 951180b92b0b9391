/** `keys create`: issues a key for an existing customer, optionally one that expires, and shows it this once. Audited. */
import { nowMs } from '../../clock.js';
import { CustomerIdSchema, parseExpiry, parseKeyName, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { createAuditedKey, issuedKey } from '../key-rows.js';

export const keysCreate = defineCommand({
  name: 'keys create',
  synopsis: '<customerId> [--name LABEL] [--expires-in 90d | --expires-at <ISO date>]',
  positionals: [1, 1],
  writes: true,
  flags: { name: 'string', 'expires-in': 'string', 'expires-at': 'string' },
  prepare({ args, flags, stage }) {
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    const name = parseKeyName(flags.name);
    const expiresAt = parseExpiry(flags['expires-in'], flags['expires-at'], nowMs());
    return async ({ auth, audit }) => {
      const customer = await auth.getCustomer(customerId);
      if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}: create it with customers set-plan first`);
      const created = await createAuditedKey({ auth, audit }, customerId, stage, { name, expiresAt, now: new Date(nowMs()) });
      const { json, line } = issuedKey(created, customer.plan, stage);
      const suspended = customer.suspendedAt ? '\nThe customer is suspended: the key is refused until `customers resume`.' : '';
      return {
        json,
        text: `${created.apiKey}\n\n${line}.\nThis is the only time the key is shown: only its SHA-256 is stored.${suspended}`,
      };
    };
  },
});
