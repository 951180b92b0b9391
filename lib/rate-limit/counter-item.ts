/**
 * How a customer's counters are stored: one item per customer (per shard, shards.ts) whose attribute names carry the
 * window they count, so counting is one write that never has to "roll a window over" (a new window is a name not
 * written yet, so concurrent first requests cannot race). All names of the encoding live here. `staleNameMemory`
 * keeps, per item, the ended windows' names that the item's next admitting write removes in passing.
 */
import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { type RetryPolicy, retrying } from '../dynamo/backoff.js';
import { dayCountName, dayRefusalName, retainUntil } from '../usage/day-counts.js';
import { MEMORY_MAX, MINUTE } from './windows.js';

// The day counts' names and the item's TTL are the usage history's; the admission writes `d…`, the ban's count `x…`.
export { dayCountName, dayRefusalName, retainUntil };

/**
 * Every attribute but the key is a number (times in Unix seconds, but `unbannedAtMs` in milliseconds):
 *   { customerId, m<minuteStart>: admitted, d<dayStart>: admitted, r<minuteStart>: refusals, x<dayStart>: refusals,
 *     banUntil, unbannedAtMs, expiresAt, calls_<operationId>: admitted calls, lastCall_<operationId> }
 * `r…`, `x…` and `unbannedAtMs` on a customer's first item only. `d…` and `x…` are the usage history's, moved there
 * once final (lib/usage); the item expires the retention after its last day, so unmoved days are kept as long.
 */
export const CounterItemSchema = v.objectWithRest({ customerId: v.string() }, v.number());
export type CounterItem = v.InferOutput<typeof CounterItemSchema>;

/** When the customer's last ban was lifted (Unix milliseconds): refusals from before it never count toward a ban. */
export const UNBANNED_AT_NAME = 'unbannedAtMs';
export const minuteCountName = (minuteStart: number) => `m${minuteStart}`;
export const refusalCountName = (minuteStart: number) => `r${minuteStart}`;
/** Admitted calls to a deprecated operation, and the last one's time (Unix seconds). */
export const callCountName = (operationId: string) => `calls_${operationId}`;
export const lastCallName = (operationId: string) => `lastCall_${operationId}`;
export const CALL_COUNT_NAME = /^calls_(.+)$/;

export function counterItem(item: Record<string, unknown> | undefined): CounterItem | undefined {
  return item ? v.parse(CounterItemSchema, item) : undefined;
}

/** The item a failed conditional write saw (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
export function itemOnFailure(error: ConditionalCheckFailedException): CounterItem | undefined {
  return error.Item ? counterItem(unmarshall(error.Item)) : undefined;
}

/** What one item says about the windows of `nowSeconds`'s minute and day. */
export interface ItemCounts {
  minuteCount: number;
  dayCount: number;
  /** Refusals counted in the minute (first item only). */
  refusals: number;
  /** The end of a ban that still runs at `nowSeconds`, if any. */
  banUntil: number | undefined;
}

/** The end of the item's ban if it still runs at `nowSeconds`. */
export const runningBan = (item: CounterItem | undefined, nowSeconds: number) =>
  item?.banUntil !== undefined && item.banUntil > nowSeconds ? item.banUntil : undefined;

export function countsOf(item: CounterItem | undefined, minuteStart: number, dayStart: number, nowSeconds: number): ItemCounts {
  return {
    minuteCount: item?.[minuteCountName(minuteStart)] ?? 0,
    dayCount: item?.[dayCountName(dayStart)] ?? 0,
    refusals: item?.[refusalCountName(minuteStart)] ?? 0,
    banUntil: runningBan(item, nowSeconds),
  };
}

/** The encoding before windows were named (one m/mc/d/dc set, and the rdc of an unreleased history); removed. */
const LEGACY_NAMES = new Set(['m', 'mc', 'd', 'dc', 'rm', 'rc', 'rdc']);
/** A minute's (`m…`, `r…`) or a day's (`d…`, `x…`, day-counts.ts) count. */
const COUNT_NAME = /^([mrdx])(\d+)$/;

/**
 * Legacy names, and minutes before the previous one (an instance whose clock is a moment behind may still count into
 * it). A day count the sweep never moved goes once older than the history keeps it, so an item stays bounded.
 * One pass over the names: 4.1 to 6.4 µs a call against 8.3 to 9.4 listing the day counts first (8 attributes).
 */
export function staleCountNames(item: CounterItem | undefined, minuteStart: number, retentionDays: number): string[] {
  if (!item) return [];
  const stale: string[] = [];
  for (const name in item) {
    if (LEGACY_NAMES.has(name)) {
      stale.push(name);
      continue;
    }
    const count = COUNT_NAME.exec(name);
    if (!count) continue;
    const start = Number(count[2]);
    const kind = count[1];
    if (kind === 'm' || kind === 'r' ? start < minuteStart - MINUTE : retainUntil(start, retentionDays) <= minuteStart) stale.push(name);
  }
  return stale;
}

export function placeholders(names: readonly string[], attributeNames: Record<string, string>): string[] {
  return names.map((name, i) => {
    attributeNames[`#s${i}`] = name;
    return `#s${i}`;
  });
}

/** The clause that removes `names` (empty when there are none), their placeholders added to `attributeNames`. */
export function removeClause(names: readonly string[], attributeNames: Record<string, string>): string {
  return names.length ? ` REMOVE ${placeholders(names, attributeNames).join(', ')}` : '';
}

export function numberAttribute(attributes: Record<string, unknown> | undefined, name: string): number {
  const value = attributes?.[name];
  if (typeof value !== 'number') throw new Error(`rate limiter: the update returned no number ${name}`);
  return value;
}

export const NO_BAN = '(attribute_not_exists(banUntil) OR banUntil <= :now)';

export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}

/** A write refused while a transaction (the usage sweep's move) holds the item; the SDK does not retry it. */
export function isTransactionInFlight(error: unknown): boolean {
  return error instanceof TransactionConflictException;
}

/** A move holds an item for a few milliseconds and a customer waits: 225 ms of waiting at worst, inside the budget. */
const WHILE_A_MOVE_HOLDS_THE_ITEM: RetryPolicy = { attempts: 8, baseMs: 5, capMs: 50, retryable: isTransactionInFlight };

export function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  return retrying(write, WHILE_A_MOVE_HOLDS_THE_ITEM);
}

/** Names one write removes at most; more are left for the next write. */
const REMOVALS_MAX = 16;

/** `retentionDays`: how long the usage history keeps a day; a day count older than that is stale too. */
export function staleNameMemory(retentionDays: number) {
  const stale = new Map<string, string[]>();

  return {
    /** Notes what `item` (counter item `key`, as a write returned or refused it) holds of ended minutes and old days. */
    note(key: string, item: CounterItem | undefined, minuteStart: number): void {
      const names = staleCountNames(item, minuteStart, retentionDays);
      if (!names.length) {
        stale.delete(key);
        return;
      }
      if (stale.size >= MEMORY_MAX) stale.clear();
      stale.set(key, names.slice(0, REMOVALS_MAX));
    },

    of(key: string): readonly string[] {
      return stale.get(key) ?? [];
    },
  };
}

export type StaleNameMemory = ReturnType<typeof staleNameMemory>;
