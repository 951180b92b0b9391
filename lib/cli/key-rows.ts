/** How the CLI shows keys (never the key itself) and the audited writes it issues and revokes them with. */
import { keyStatus } from '../auth/key-status.js';
import type { KeyRecord } from '../auth/records.js';
import type { Stage } from '../stacks.js';
import type { Stores } from './stores.js';

export function keyRow(record: KeyRecord, nowMs: number) {
  return {
    keyId: record.keyId,
    customerId: record.customerId,
    status: keyStatus(record, nowMs),
    created: record.createdAt,
    expires: record.expiresAt ?? null,
    ...(record.name ? { name: record.name } : {}),
    ...(record.revokedAt ? { revoked: record.revokedAt } : {}),
    ...(record.rolledTo ? { rolledTo: record.rolledTo } : {}),
    ...(record.rolledFrom ? { rolledFrom: record.rolledFrom } : {}),
  };
}
type KeyRow = ReturnType<typeof keyRow>;

export function keyLines(rows: readonly KeyRow[]): string {
  if (!rows.length) return 'no keys';
  const header = `${'KEY'.padEnd(20)}  ${'CUSTOMER'.padEnd(20)}  ${'STATUS'.padEnd(8)}  ${'EXPIRES'.padEnd(24)}  ${'CREATED'.padEnd(24)}  NAME`;
  const lines = rows.map((r) =>
    `${r.keyId.padEnd(20)}  ${r.customerId.padEnd(20)}  ${r.status.padEnd(8)}  ${(r.expires ?? 'never').padEnd(24)}  ${r.created.padEnd(24)}  ${r.name ?? ''}`.trimEnd(),
  );
  return [header, ...lines].join('\n');
}

/** What `keys create` and `keys roll` print of the key they issued, besides the key itself. */
export function issuedKey({ apiKey, record }: { apiKey: string; record: KeyRecord }, plan: string, stage: Stage) {
  const expires = record.expiresAt ? `, expires ${record.expiresAt}` : '';
  return {
    json: {
      apiKey,
      keyId: record.keyId,
      customerId: record.customerId,
      plan,
      stage,
      ...(record.expiresAt ? { expiresAt: record.expiresAt } : {}),
    },
    line: `key ${record.keyId} for customer ${record.customerId} (${plan}, ${stage}${expires})`,
  };
}

/** The one way the CLI issues a key (`keys create`, `verify`): with its audit record in one transaction. */
export function createAuditedKey(
  { auth, audit }: Pick<Stores, 'auth' | 'audit'>,
  customerId: string,
  stage: Stage,
  { name, expiresAt, now }: { name?: string; expiresAt?: Date; now: Date },
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

/** Revokes an active key with its audit record; false when someone else revoked it first. */
export function revokeAuditedKey({ auth, audit }: Pick<Stores, 'auth' | 'audit'>, key: KeyRecord, now: Date): Promise<boolean> {
  const changes = { status: { from: 'active', to: 'revoked' } };
  return auth.revoke(key, audit.change({ action: 'key-revoke', customerId: key.customerId, keyId: key.keyId, changes }, now));
}
