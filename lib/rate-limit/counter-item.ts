/**
 * How a customer's counters are stored. Each counter item holds its counts under attribute names that carry the
 * window they count, so counting is one unconditional-in-shape write that never has to "roll a window over":
 *   { customerId, m<minuteStart>: admitted, d<dayStart>: admitted, r<minuteStart>: refusals, banUntil, expiresAt }
 * (window starts in Unix seconds; `r…` on a customer's first item only). A new minute is simply a name not written
 * yet, so the first request of a window costs the same single write as any other, and concurrent first requests
 * cannot race. Names of ended windows are removed by later writes (`staleNames`); the whole item expires by TTL
 * a day after its last day window. Large Enterprise customers are counted on several items (shards.ts), each with
 * this encoding; `customerId` is then the shard's key.
 * All names of the encoding live here; the limiter and the ban logic speak in windows and refusals.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { DAY, MINUTE } from './windows.js';

/** Every attribute but the key is a number: counts, window starts, the ban's end, the TTL. */
export const CounterItemSchema = v.objectWithRest({ customerId: v.string() }, v.number());
export type CounterItem = v.InferOutput<typeof CounterItemSchema>;

export const minuteCountName = (minuteStart: number) => `m${minuteStart}`;
export const dayCountName = (dayStart: number) => `d${dayStart}`;
export const refusalCountName = (minuteStart: number) => `r${minuteStart}`;

/** An item as DynamoDB returned it (document client output), or undefined when there is none. */
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

export function countsOf(item: CounterItem | undefined, minuteStart: number, dayStart: number, nowSeconds: number): ItemCounts {
  const banUntil = item?.banUntil;
  return {
    minuteCount: item?.[minuteCountName(minuteStart)] ?? 0,
    dayCount: item?.[dayCountName(dayStart)] ?? 0,
    refusals: item?.[refusalCountName(minuteStart)] ?? 0,
    banUntil: banUntil !== undefined && banUntil > nowSeconds ? banUntil : undefined,
  };
}

/** Requests an item counted in the UTC day of `nowSeconds` (tests and the load test read stored items with it). */
export function admittedInDay(item: Record<string, unknown> | undefined, nowSeconds: number): number {
  const counted = item?.[dayCountName(nowSeconds - (nowSeconds % DAY))];
  return typeof counted === 'number' ? counted : 0;
}

/** The encoding before windows were named (one m/mc/d/dc/rm/rc set); removed whenever an item is written. */
const LEGACY_NAMES = new Set(['m', 'mc', 'd', 'dc', 'rm', 'rc']);

/**
 * Attributes of windows that can no longer be written: all but the current and the previous minute and day. The
 * previous ones stay because another instance whose clock is a moment behind may still count into them.
 */
export function staleNames(item: CounterItem | undefined, minuteStart: number, dayStart: number): string[] {
  if (!item) return [];
  return Object.keys(item).filter((name) => {
    if (LEGACY_NAMES.has(name)) return true;
    const window = /^([mdr])(\d+)$/.exec(name);
    if (!window) return false;
    const start = Number(window[2]);
    return window[1] === 'd' ? start < dayStart - DAY : start < minuteStart - MINUTE;
  });
}

/** Placeholders (#s0, #s1, …) for `names`, added to `attributeNames`. */
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

/** A number attribute of an UpdateItem's returned Attributes. */
export function numberAttribute(attributes: Record<string, unknown> | undefined, name: string): number {
  const value = attributes?.[name];
  if (typeof value !== 'number') throw new Error(`rate limiter: the update returned no number ${name}`);
  return value;
}

/** True while no ban runs at :now. */
export const NO_BAN = '(attribute_not_exists(banUntil) OR banUntil <= :now)';

export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}
