/** `keys roll`: a new key, shown once; the old one works until the grace ends, never longer than it would have. Audited. */
import { KeyNotFound } from '../../auth/admin-change.js';
import { keyStatus } from '../../auth/key-status.js';
import { nowMs } from '../../clock.js';
import { KeyIdSchema, parseDuration, parseExpiry, parseKeyName, parseWith, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { issuedKey } from '../key-rows.js';

const DEFAULT_GRACE_SECONDS = 86_400;

export const keysRoll = defineCommand({
  name: 'keys roll',
  synopsis: '<keyId> [--grace 24h] [--name LABEL] [--expires-in 90d | --expires-at <ISO date>]',
  positionals: [1, 1],
  writes: true,
  flags: { grace: 'string', name: 'string', 'expires-in': 'string', 'expires-at': 'string' },
  prepare({ args, flags, stage }) {
    const keyId = parseWith(KeyIdSchema, args[0], 'keyId');
    const graceSeconds = parseDuration(flags.grace, '--grace', { min: 0, max: 30 * 86_400 }) ?? DEFAULT_GRACE_SECONDS;
    const name = parseKeyName(flags.name);
    const expiresAt = parseExpiry(flags['expires-in'], flags['expires-at'], nowMs());
    return async ({ auth, audit }) => {
      const old = await auth.findKeyById(keyId);
      if (!old || old.stage !== stage) throw new KeyNotFound(`no key "${keyId}"`);
      if (old.status === 'revoked') throw new UsageError(`key ${keyId} is revoked: issue a new one with keys create`);
      if (old.rolledTo) throw new UsageError(`key ${keyId} was already rolled, to ${old.rolledTo}: roll that one`);
      const customer = await auth.getCustomer(old.customerId);
      if (!customer) throw new UsageError(`key ${keyId} belongs to no customer in ${stage}`);
      const now = new Date(nowMs());
      const graceEnds = new Date(
        Math.min(now.getTime() + graceSeconds * 1000, old.expiresAt ? Date.parse(old.expiresAt) : Number.POSITIVE_INFINITY),
      );
      const rolled = await auth.rollKey(old, graceEnds, {
        now,
        expiresAt,
        ...(name ? { name } : {}),
        also: (key) => [
          audit.entry(
            {
              action: 'key-roll',
              customerId: old.customerId,
              keyId,
              changes: {
                expiresAt: { from: old.expiresAt ?? null, to: graceEnds.toISOString() },
                rolledTo: { from: null, to: key.keyId },
                ...(key.expiresAt ? { newKeyExpiresAt: { from: null, to: key.expiresAt } } : {}),
              },
            },
            now,
          ),
        ],
      });
      const oldEnds = graceEnds.toISOString();
      const oldStatus = keyStatus(rolled.old, now.getTime());
      const { json, line } = issuedKey(rolled, customer.plan, stage);
      return {
        json: { ...json, rolledFrom: { keyId, expiresAt: oldEnds } },
        text: [
          rolled.apiKey,
          '',
          `${line} replaces ${keyId}.`,
          oldStatus === 'expired'
            ? `${keyId} no longer works (expired ${oldEnds}).`
            : `${keyId} keeps working until ${oldEnds}, then is refused as expired.`,
          'This is the only time the new key is shown: only its SHA-256 is stored.',
        ].join('\n'),
      };
    };
  },
});
