/**
 * The one way the admin CLI issues a key (`keys create`, `verify`): the key and its `key-create` audit record in one
 * transaction, so no key exists that the audit trail does not show.
 */
import type { Stage } from '../stacks.js';
import type { Stores } from './stores.js';

export interface AuditedKeyOptions {
  name?: string;
  expiresAt?: Date;
  now: Date;
}

export function createAuditedKey(
  { auth, audit }: Pick<Stores, 'auth' | 'audit'>,
  customerId: string,
  stage: Stage,
  { name, expiresAt, now }: AuditedKeyOptions,
) {
  return auth.createKey(customerId, stage, name, {
    now,
    expiresAt,
    also: (key) => [
      audit.entry(
        {
          action: 'key-create',
          customerId,
          keyId: key.keyId,
          changes: {
            status: { from: null, to: key.status },
            ...(key.name ? { name: { from: null, to: key.name } } : {}),
            ...(key.expiresAt ? { expiresAt: { from: null, to: key.expiresAt } } : {}),
          },
        },
        now,
      ),
    ],
  });
}
