/** How the CLI shows a key (`keys list`, `customers show`): its id, customer, status, expiry and name; never the key. */
import { keyStatus } from '../auth/key-status.js';
import type { KeyRecord } from '../auth/records.js';

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
export type KeyRow = ReturnType<typeof keyRow>;

export function keyLines(rows: readonly KeyRow[]): string {
  if (!rows.length) return 'no keys';
  const header = `${'KEY'.padEnd(20)}  ${'CUSTOMER'.padEnd(20)}  ${'STATUS'.padEnd(8)}  ${'EXPIRES'.padEnd(24)}  ${'CREATED'.padEnd(24)}  NAME`;
  const lines = rows.map((r) =>
    `${r.keyId.padEnd(20)}  ${r.customerId.padEnd(20)}  ${r.status.padEnd(8)}  ${(r.expires ?? 'never').padEnd(24)}  ${r.created.padEnd(24)}  ${r.name ?? ''}`.trimEnd(),
  );
  return [header, ...lines].join('\n');
}
