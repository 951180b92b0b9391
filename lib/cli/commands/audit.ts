/** `audit`: the changes made through the CLI, oldest first: when, who, what, to which customer and key or category. */
import { nowMs } from '../../clock.js';
import { CustomerIdSchema, parseInstant, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { existingCustomer } from '../stores.js';

const show = (value: string | number | boolean | null) => (value === null ? '-' : String(value));

export const audit = defineCommand({
  name: 'audit',
  synopsis: '[--customer <customerId>] [--since <date>]',
  writes: false,
  flags: { customer: 'string', since: 'string' },
  prepare({ flags, stage }) {
    const customerId = flags.customer === undefined ? undefined : parseWith(CustomerIdSchema, flags.customer, '--customer');
    const since = parseInstant(flags.since, '--since');
    if (since && since.getTime() > nowMs()) throw new UsageError(`--since ${since.toISOString()} is in the future`);
    return async ({ audit: trail, auth }) => {
      // Customers are never deleted (only suspended), so every customer with a record still exists.
      if (customerId !== undefined) await existingCustomer(auth, customerId, stage);
      const entries = await trail.list({ customerId, since: since?.toISOString() });
      const lines = entries.map((e) => {
        // DynamoDB keeps no order in a map: the fields are listed alphabetically.
        const changes = Object.entries(e.changes)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([field, c]) => `${field} ${show(c.from)} → ${show(c.to)}`)
          .join(', ');
        const category = e.categoryId !== undefined ? `category ${e.categoryId}` : '';
        return [e.at, e.actor, e.action, e.customerId, e.keyId ?? '', category, changes, e.reason ? `reason: ${e.reason}` : '']
          .filter(Boolean)
          .join('  ');
      });
      return { json: entries, text: lines.length ? lines.join('\n') : 'no changes recorded' };
    };
  },
});
