/** A key's status as operators see it (`keys list`): revoked, expired, expiring (within a week) or active. */
import type { KeyRecord } from './records.js';

export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

export const EXPIRING_WITHIN_SECONDS = 7 * 86_400;

export function hasExpired(record: Pick<KeyRecord, 'expiresAt'>, nowMs: number): boolean {
  return record.expiresAt !== undefined && Date.parse(record.expiresAt) <= nowMs;
}

export function keyStatus(record: Pick<KeyRecord, 'status' | 'expiresAt'>, nowMs: number): KeyStatus {
  if (record.status === 'revoked') return 'revoked';
  if (hasExpired(record, nowMs)) return 'expired';
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= nowMs + EXPIRING_WITHIN_SECONDS * 1000) return 'expiring';
  return 'active';
}
