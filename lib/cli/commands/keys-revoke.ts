/** `keys revoke`: revokes a key by its public id; the authorizer's cache lets it work until its TTL ends. Audited. */
import { KeyNotFound } from '../../auth/admin-change.js';
import { nowMs } from '../../clock.js';
import { KeyIdSchema, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { revokeAuditedKey } from '../key-rows.js';

export const keysRevoke = defineCommand({
  name: 'keys revoke',
  synopsis: '<keyId>',
  positionals: [1, 1],
  writes: true,
  prepare({ args, stage }) {
    const keyId = parseWith(KeyIdSchema, args[0], 'keyId');
    return async ({ auth, audit }) => {
      const found = await auth.findKeyById(keyId);
      if (!found || found.stage !== stage) throw new KeyNotFound(`no key "${keyId}"`);
      const now = new Date(nowMs());
      const revokedNow = found.status === 'active' && (await revokeAuditedKey({ auth, audit }, found, now));
      const record = revokedNow
        ? { ...found, status: 'revoked', revokedAt: now.toISOString() }
        : ((await auth.findKeyById(keyId)) ?? found);
      return {
        json: { keyId, customerId: record.customerId, status: record.status, revokedAt: record.revokedAt },
        text: revokedNow
          ? `key ${keyId} of customer ${record.customerId} is revoked (cached authorizations end within the cache TTL)`
          : `key ${keyId} of customer ${record.customerId} was already revoked (${record.revokedAt ?? 'time unknown'}): nothing changed`,
      };
    };
  },
});
