/** `customers list`: every customer with its plan, limits, working keys and state; `verify`'s only with `--include-verify`. */
import { keyStatus } from '../../auth/key-status.js';
import { isVerifyCustomer, limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { defineCommand } from '../command.js';
import { INCLUDE_VERIFY, withoutVerify } from '../stores.js';

export const customersList = defineCommand({
  name: 'customers list',
  synopsis: `[--${INCLUDE_VERIFY}]`,
  writes: false,
  flags: { [INCLUDE_VERIFY]: 'boolean' },
  prepare({ flags }) {
    return async ({ auth }) => {
      const now = nowMs();
      const [all, keys] = await Promise.all([auth.listCustomers(), auth.listKeys()]);
      const { shown: customers, note } = withoutVerify(all, flags[INCLUDE_VERIFY] === true);
      const working = new Map<string, number>();
      for (const key of keys) {
        const status = keyStatus(key, now);
        if (status === 'active' || status === 'expiring') working.set(key.customerId, (working.get(key.customerId) ?? 0) + 1);
      }
      const rows = customers.map((c) => ({
        customerId: c.customerId,
        plan: c.plan,
        ...limitsOf(c),
        activeKeys: working.get(c.customerId) ?? 0,
        suspended: c.suspendedAt !== undefined,
        ...(isVerifyCustomer(c) ? { purpose: c.purpose } : {}),
      }));
      const header = `${'CUSTOMER'.padEnd(24)}  ${'PLAN'.padEnd(10)}  ${'PER MINUTE'.padStart(10)}  ${'PER DAY'.padStart(12)}  ${'KEYS'.padStart(4)}  STATE`;
      const lines = rows.map(
        (r) =>
          `${r.customerId.padEnd(24)}  ${r.plan.padEnd(10)}  ${String(r.perMinute).padStart(10)}  ${String(r.perDay).padStart(12)}  ${String(r.activeKeys).padStart(4)}  ${r.suspended ? 'suspended' : 'active'}${r.purpose ? ` (${r.purpose})` : ''}`,
      );
      return { json: rows, text: rows.length ? [header, ...lines].join('\n') : 'no customers', note };
    };
  },
});
