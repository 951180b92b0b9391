/** `keys list`: every key of the environment, or of one existing customer: id, status, expiry, name; never the key itself. */
import { nowMs } from '../../clock.js';
import { CustomerIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { keyLines, keyRow } from '../key-rows.js';
import { existingCustomer } from '../stores.js';

export const keysList = defineCommand({
  name: 'keys list',
  synopsis: '[<customerId>]',
  positionals: [0, 1],
  writes: false,
  prepare({ args, stage }) {
    const customerId = args[0] === undefined ? undefined : parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth }) => {
      if (customerId !== undefined) await existingCustomer(auth, customerId, stage);
      const now = nowMs();
      const rows = (await auth.listKeys(customerId)).map((k) => keyRow(k, now));
      return { json: rows, text: keyLines(rows) };
    };
  },
});
