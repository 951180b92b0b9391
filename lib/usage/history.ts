/**
 * Each customer's requests per UTC day, admitted and refused: the basis of a bill, shown by the admin CLI's `usage`.
 *
 * A day's totals are written once, by the write that ends the day. When a customer's first request of a new UTC day
 * rolls its window over, the rate limiter (dynamo-limiter.ts) sends that rollover as one TransactWriteItems that also
 * adds the day that ended to the customer's history (`rollOverDay`). The transaction carries the rollover's own
 * condition (the day and its count as the limiter read them), so the totals it records are the day's final ones,
 * recorded exactly once whatever runs concurrently, and the request still costs one write. Until a day is rolled
 * over (it is today, or the customer has sent nothing since) its totals are the live counter's (`d`, `dc`, `rdc`),
 * and readers take them from there.
 *
 * History items live in the counters table beside the live counters, one per customer and month:
 *   { customerId: "usage#<customerId>#YYYY-MM", a01: 812, r01: 3, a02: 1000, …, expiresAt }
 * `aDD` and `rDD` are day DD's admitted and refused requests. A month stays under 1 KB (one write unit, two in a
 * transaction), and a month's bill for every customer is one BatchGetItem key per customer. The rollover ADDs to
 * them, so a customer whose counts were spread over several items would have each add its part. Customer ids never
 * hold a "#", so these keys can never be a customer's. A history item expires `retentionDays` after its month ends;
 * the live counter, which holds an idle customer's last day until its next request, is kept as long.
 *
 * Refused requests are those refused because a window was used up (429 RATE_LIMIT_EXCEEDED), counted by the write
 * that already counts them for the ban (ban.ts). Requests refused during a ban are answered without a write and are
 * not counted; a refusal whose write lands just after midnight counts on the new day.
 */
import { ConditionalCheckFailedException, TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { DAY_SECONDS, dateOf, eachDay, monthOf, parseMonth } from './days.js';

export const USAGE_RETENTION_DEFAULT_DAYS = 400;

export interface DayTotals {
  admitted: number;
  refused: number;
}

export interface ClosedDay extends DayTotals {
  /** The start of the day, Unix seconds. */
  dayStart: number;
}

/** What the history reads of a live counter item: its day window and that day's admitted and refused requests. */
const LiveDaySchema = v.object({ d: v.optional(v.number()), dc: v.optional(v.number()), rdc: v.optional(v.number()) });
export type LiveDay = v.InferOutput<typeof LiveDaySchema>;

/** The day that a rollover into the day starting at `dayStart` ends, when it is an earlier day with anything in it. */
export function closedDay(old: LiveDay | undefined, dayStart: number): ClosedDay | undefined {
  if (old?.d === undefined || old.d >= dayStart) return undefined;
  const admitted = old.dc ?? 0;
  const refused = old.rdc ?? 0;
  return admitted + refused > 0 ? { dayStart: old.d, admitted, refused } : undefined;
}

/** The TTL (Unix seconds) of what holds the totals of the day starting at `dayStart`: `retentionDays` after it ends. */
export function retainUntil(dayStart: number, retentionDays: number): number {
  return dayStart + (retentionDays + 1) * DAY_SECONDS;
}

const HISTORY_PREFIX = 'usage#';
const historyKey = (customerId: string, month: string) => ({ customerId: `${HISTORY_PREFIX}${customerId}#${month}` });
const DAY_ATTRIBUTE = /^([ar])(\d{2})$/;

/** The rollover's UpdateItem on the counter item, as the limiter sends it, without the table name. */
export interface RolloverWrite {
  Key: Record<string, NativeAttributeValue>;
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeValues: Record<string, NativeAttributeValue>;
}

/**
 * The rollover that ends a day, and the day's totals added to the history, in one transaction. When it loses to a
 * concurrent write (its condition failed, or another transaction held the item) it throws what the plain rollover
 * would have thrown, a ConditionalCheckFailedException, so the limiter goes round again as it always did.
 */
export async function rollOverDay(
  db: DynamoDBDocumentClient,
  table: string,
  customerId: string,
  roll: RolloverWrite,
  closed: ClosedDay,
  retentionDays: number,
): Promise<void> {
  const month = monthOf(closed.dayStart);
  const day = dateOf(closed.dayStart).slice(8);
  const lastDay = parseMonth(month)?.last ?? closed.dayStart;
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: table, ...roll } },
          {
            Update: {
              TableName: table,
              Key: historyKey(customerId, month),
              UpdateExpression: `ADD #admitted :admitted${closed.refused ? ', #refused :refused' : ''} SET expiresAt = :expires`,
              ExpressionAttributeNames: { '#admitted': `a${day}`, ...(closed.refused ? { '#refused': `r${day}` } : {}) },
              ExpressionAttributeValues: {
                ':admitted': closed.admitted,
                ...(closed.refused ? { ':refused': closed.refused } : {}),
                ':expires': retainUntil(lastDay, retentionDays),
              },
            },
          },
        ],
      }),
    );
  } catch (error) {
    const lost =
      error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');
    if (lost) throw new ConditionalCheckFailedException({ message: 'another request rolled the window over first', $metadata: {} });
    throw error;
  }
}

/**
 * A write refused because a rollover transaction held the same item: DynamoDB rejects a plain write to an item that
 * an ongoing transaction includes, and the SDK does not retry it.
 */
export function isRolloverInFlight(error: unknown): boolean {
  return error instanceof TransactionConflictException;
}

/** A short random pause before trying again after `isRolloverInFlight`, growing with the attempt, at most 50 ms. */
export function pauseForRollover(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(50, 5 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Totals by customer and day start, gathered from history items and live counters. */
type Totals = Map<string, Map<number, DayTotals>>;

function add(totals: Totals, customerId: string, dayStart: number, part: Partial<DayTotals>): void {
  let days = totals.get(customerId);
  if (!days) {
    days = new Map();
    totals.set(customerId, days);
  }
  const sum = days.get(dayStart) ?? { admitted: 0, refused: 0 };
  days.set(dayStart, { admitted: sum.admitted + (part.admitted ?? 0), refused: sum.refused + (part.refused ?? 0) });
}

function collect(items: Record<string, unknown>[]): Totals {
  const totals: Totals = new Map();
  for (const item of items) {
    const key = item.customerId;
    if (typeof key !== 'string') continue;
    if (!key.startsWith(HISTORY_PREFIX)) {
      const live = v.parse(LiveDaySchema, item);
      if (live.d !== undefined) add(totals, key, live.d, { admitted: live.dc, refused: live.rdc });
      continue;
    }
    const split = key.lastIndexOf('#');
    const customerId = key.slice(HISTORY_PREFIX.length, split);
    const month = parseMonth(key.slice(split + 1));
    if (!month) throw new Error(`usage history: malformed key ${key}`);
    for (const [name, value] of Object.entries(item)) {
      const match = DAY_ATTRIBUTE.exec(name);
      if (!match || typeof value !== 'number') continue;
      const dayStart = month.first + (Number(match[2]) - 1) * DAY_SECONDS;
      add(totals, customerId, dayStart, match[1] === 'a' ? { admitted: value } : { refused: value });
    }
  }
  return totals;
}

export interface DayRow extends DayTotals {
  date: string;
}

export interface MonthRow extends DayTotals {
  customerId: string;
  /** Days with at least one admitted or refused request. */
  activeDays: number;
}

/** BatchGetItem takes at most 100 keys. */
const BATCH = 100;

/** The readers: the admin CLI's `usage`, `usage --month` and `customers show`. */
export function usageHistory(db: DynamoDBDocumentClient, table: string) {
  async function read(keys: Record<string, string>[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i += BATCH) {
      let pending: Record<string, string>[] = keys.slice(i, i + BATCH);
      for (let round = 0; pending.length; round++) {
        if (round) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** round)));
        const out = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
        items.push(...(out.Responses?.[table] ?? []));
        pending = (out.UnprocessedKeys?.[table]?.Keys ?? []).flatMap((k) =>
          typeof k.customerId === 'string' ? [{ customerId: k.customerId }] : [],
        );
      }
    }
    return items;
  }

  return {
    /** One row per day from `first` to `last` (day starts, both included), with that day's totals. */
    async days(customerId: string, first: number, last: number): Promise<DayRow[]> {
      const days = eachDay(first, last);
      const months = [...new Set(days.map(monthOf))];
      const totals = collect(await read([{ customerId }, ...months.map((m) => historyKey(customerId, m))])).get(customerId);
      return days.map((day) => ({ date: dateOf(day), ...(totals?.get(day) ?? { admitted: 0, refused: 0 }) }));
    },

    /** Each customer's totals for a `YYYY-MM` month, in the order given. */
    async month(customerIds: readonly string[], month: string): Promise<MonthRow[]> {
      const range = parseMonth(month);
      if (!range) throw new Error(`usage history: not a month: ${month}`);
      const totals = collect(await read(customerIds.flatMap((id) => [{ customerId: id }, historyKey(id, month)])));
      return customerIds.map((customerId) => {
        const inMonth = [...(totals.get(customerId) ?? new Map<number, DayTotals>())].filter(
          ([day]) => day >= range.first && day <= range.last,
        );
        return {
          customerId,
          admitted: inMonth.reduce((sum, [, t]) => sum + t.admitted, 0),
          refused: inMonth.reduce((sum, [, t]) => sum + t.refused, 0),
          activeDays: inMonth.filter(([, t]) => t.admitted + t.refused > 0).length,
        };
      });
    },
  };
}

export type UsageHistory = ReturnType<typeof usageHistory>;
