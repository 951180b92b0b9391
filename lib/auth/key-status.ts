/**
 * A key's status as operators see it (`keys list`), from what is stored and the time: revoked, expired (past its
 * expiry), expiring (within EXPIRING_WITHIN_SECONDS of it) or active. The authorizer refuses revoked and expired keys.
 */
import type { KeyRecord } from './records.js';

export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

/** A key that expires within a week shows as expiring, so operators see which clients must move to a new key. */
export const EXPIRING_WITHIN_SECONDS = 7 * 86_400;

/** True once the key's expiry has passed: from that instant on it is refused. */
export function hasExpired(record: Pick<KeyRecord, 'expiresAt'>, nowMs: number): boolean {
  return record.expiresAt !== undefined && Date.parse(record.expiresAt) <= nowMs;
}

export function keyStatus(record: Pick<KeyRecord, 'status' | 'expiresAt'>, nowMs: number): KeyStatus {
  if (record.status === 'revoked') return 'revoked';
  if (hasExpired(record, nowMs)) return 'expired';
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= nowMs + EXPIRING_WITHIN_SECONDS * 1000) return 'expiring';
  return 'active';
}
