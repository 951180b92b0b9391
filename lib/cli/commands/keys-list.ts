/** `keys list`: every key of the environment, or of one customer, by id and status; never the key itself. */
import { CustomerIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';

export const keysList = defineCommand({
  name: 'keys list',
  synopsis: '[<customerId>]',
  positionals: [0, 1],
  flags: {},
  prepare({ args }) {
    const customerId = args[0] === undefined ? undefined : parseWith(CustomerIdSchema, args[0], 'customerId');
    return async ({ auth }) => {
      const keys = await auth.listKeys(customerId);
      const rows = keys.map((k) => ({
        keyId: k.keyId,
        customerId: k.customerId,
        status: k.status,
        created: k.createdAt,
        ...(k.name ? { name: k.name } : {}),
        ...(k.revokedAt ? { revoked: k.revokedAt } : {}),
      }));
      const text = rows.length
        ? rows.map((r) => `${r.keyId}  ${r.customerId.padEnd(20)}  ${r.status.padEnd(7)}  ${r.created}  ${r.name ?? ''}`).join('\n')
        : 'no keys';
      return { json: rows, text };
    };
  },
});
