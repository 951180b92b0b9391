/**
 * How one customer's counters are stored: one DynamoDB item holding the current minute and day windows, their
 * counts, the refusals of the current minute and of the day and any ban, with a TTL as long as the usage history's
 * (the item holds the last day's totals until the next rollover records them: lib/usage/history.ts):
 *   { customerId, m, mc, d, dc, rm, rc, rdc, banUntil, expiresAt }
 * All names of the encoding live here; the limiter and the ban logic speak in windows and refusals.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import type { WindowState } from './windows.js';

const seconds = v.optional(v.number());

export const CounterItemSchema = v.object({
  customerId: v.string(),
  /** Start of the minute window (Unix seconds) and the requests admitted in it. */
  m: seconds,
  mc: seconds,
  /** Start of the day window and the requests admitted in it. */
  d: seconds,
  dc: seconds,
  /** The minute whose refusals rc counts. */
  rm: seconds,
  rc: seconds,
  /** Requests refused for a used-up window in the day d (the usage history's "refused"). */
  rdc: seconds,
  banUntil: seconds,
  expiresAt: seconds,
});
export type CounterItem = v.InferOutput<typeof CounterItemSchema>;

/** An item as DynamoDB returned it (document client output), or undefined when there is none. */
export function counterItem(item: Record<string, unknown> | undefined): CounterItem | undefined {
  return item ? v.parse(CounterItemSchema, item) : undefined;
}

/** The item a failed conditional write saw (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
export function itemOnFailure(error: ConditionalCheckFailedException): CounterItem | undefined {
  return error.Item ? counterItem(unmarshall(error.Item)) : undefined;
}

export function windowStateOf(item: CounterItem | undefined): Partial<WindowState> {
  return { minuteStart: item?.m, minuteCount: item?.mc, dayStart: item?.d, dayCount: item?.dc };
}

/** A number attribute of an UpdateItem's returned Attributes. */
export function numberAttribute(attributes: Record<string, unknown> | undefined, name: keyof CounterItem): number {
  const value = attributes?.[name];
  if (typeof value !== 'number') throw new Error(`rate limiter: the update returned no number ${name}`);
  return value;
}

/** True while no ban runs at :now. */
export const NO_BAN = '(attribute_not_exists(banUntil) OR banUntil <= :now)';

export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}
