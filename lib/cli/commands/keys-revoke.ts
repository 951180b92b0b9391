/** `keys revoke`: revokes a key by its public id; the authorizer's cache lets it work until its TTL ends. */
import { KeyIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';

export const keysRevoke = defineCommand({
  name: 'keys revoke',
  synopsis: '<keyId>',
  positionals: [1, 1],
  flags: {},
  prepare({ args }) {
    const keyId = parseWith(KeyIdSchema, args[0], 'keyId');
    return async ({ auth }) => {
      const record = await auth.revokeKey(keyId);
      return {
        json: { keyId, customerId: record.customerId, status: record.status, revokedAt: record.revokedAt },
        text: `key ${keyId} of customer ${record.customerId} is revoked (cached authorizations end within the cache TTL)`,
      };
    };
  },
});
