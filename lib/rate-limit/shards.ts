/**
 * How many counter items a customer is counted on, and each item's share of its limits.
 */
import type { Limits } from '../plans.js';

/** Write units per second DynamoDB gives one partition, and so one item. */
/**
 * DynamoDB serves one partition, so one item, at most 1,000 write units per second. Counting an admitted request
 * is one write unit, and so is a refused one that reaches DynamoDB (a failed conditional write is charged like a
 * successful one), plus the batched refusal counts and ban writes. One item is given at most half of that ceiling
 * for admissions, 500 per second or 30,000 per minute, which leaves the other half for refusals and for a minute's
 * quota arriving faster than evenly. Above that a customer is counted on N = ceil(perMinute / 30,000) items, each
 * enforcing its share of both windows; the shares add up to the limits exactly, so never more is admitted.
 *
 * The design stops at 20 items, 600,000 requests per minute (10,000 per second): the stage-wide throttle of API
 * Gateway cannot be set higher than 10,000 requests per second (infra/config.ts), so one customer can never use
 * more, and the admin CLI refuses larger limits (a stored larger limit is still counted exactly, on 20 items).
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;
/** The share of an item's write units spent on admissions; the rest is headroom for refusals and bursts. */
export const ADMISSION_SHARE = 0.5;
/** Admitted requests per minute one counter item carries: 1,000 × 0.5 × 60. */
export const ITEM_CAPACITY_PER_MINUTE = PARTITION_WRITE_UNITS_PER_SECOND * ADMISSION_SHARE * 60;
export const MAX_SHARDS = 20;
/** The largest per-minute limit the design delivers. */
export const PER_MINUTE_MAX = ITEM_CAPACITY_PER_MINUTE * MAX_SHARDS;

export function shardCount(limits: Limits, itemCapacityPerMinute = ITEM_CAPACITY_PER_MINUTE): number {
  return Math.min(MAX_SHARDS, Math.max(1, Math.ceil(limits.perMinute / itemCapacityPerMinute)));
}

/** Shard i's part of `total` over `n` items: as even as whole numbers allow, adding up to `total`. */
export function shareOf(total: number, n: number, i: number): number {
  return Math.floor(total / n) + (i < total % n ? 1 : 0);
}

export function shardLimits(limits: Limits, n: number, i: number): Limits {
  return { perMinute: shareOf(limits.perMinute, n, i), perDay: shareOf(limits.perDay, n, i) };
}

/**
 * The key of shard i. Shard 0 is the customer's own key, so an unsharded customer has exactly the one item it
 * always had, and that item also holds the refusal count. Customer ids never contain "#", and the key of an earlier
 * version's deprecated-call record starts with "deprecated#", so these keys meet nothing else in the table.
 */
export function shardKey(customerId: string, i: number): string {
  return i === 0 ? customerId : `shard#${i}#${customerId}`;
}

/**
 * The key of every item a customer may be counted on, whatever its limits are now: what reads its counts without
 * knowing its shard count (the usage history, deprecated calls) asks for all of them.
 */
export function counterKeys(customerId: string): string[] {
  return Array.from({ length: MAX_SHARDS }, (_, i) => shardKey(customerId, i));
}

const SHARD_KEY = /^shard#\d+#([^#]+)$/;

/** The customer a counter item's key belongs to (`shardKey`'s inverse); undefined for a key of any other item. */
export function ownerOfKey(key: string): string | undefined {
  if (!key.includes('#')) return key;
  return SHARD_KEY.exec(key)?.[1];
}
