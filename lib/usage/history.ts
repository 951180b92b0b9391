/**
 * Each customer's requests per UTC day, admitted and refused: the basis of a bill, shown by the admin CLI's `usage`.
 *
 * A day's counts are first the live counter item's (lib/rate-limit/counter-item.ts): `d<dayStart>` counts admitted
 * requests, added by the admission's own write, and `x<dayStart>` refused ones, added by the write that already
 * counts refusals toward the ban (ban.ts); neither costs a write of its own. Once a day is final (two days later: no
 * instance counts into a day before the previous one), the next admitted request on that item moves its counts
 * here (`recordDays`): one TransactWriteItems that removes them from the counter item on condition that each still
 * holds the value the request's write returned (`#s0 = :v0 …`), and adds those values to the history item. The guard
 * makes the move exactly-once: of concurrent movers one wins and the others' transactions are cancelled; a count
 * written into the day afterwards all the same (a late refusal batch) reappears on the counter and is moved later.
 * Readers add what is still on the counter items to what is in the history, read together in one TransactGetItems,
 * which never sees a move half done. Only that once-per-day-per-item transaction is added: every other admitted
 * request is still one UpdateItem.
 *
 * History items live in the counters table beside the live counters, one per customer and month:
 *   { customerId: "usage#<customerId>#YYYY-MM", a01: 812, r01: 3, a02: 1000, …, expiresAt }
 * `aDD` and `rDD` are day DD's admitted and refused requests. A month stays under 1 KB. A customer counted on
 * several items (shards.ts) has each item move its own part into the same history item, and readers sum over all
 * the items it may have (any of MAX_SHARDS, so a plan change that changed its number loses nothing). Customer ids
 * never hold a "#", so these keys can never be a customer's. A history item expires `retentionDays` after its
 * month ends; the counter item expires `retentionDays` after its last day, so an idle customer's unmoved days are
 * kept as long.
 *
 * Refused requests are those refused because a window was used up (429 RATE_LIMIT_EXCEEDED), counted in batches by
 * the write that counts them for the ban (refusal-cache.ts, at most a second late while the instance keeps receiving requests), on the day of the minute they
 * happened. Requests refused during a ban are answered without a write and are not counted; refusals an instance
 * holds when it stops are lost for the ban and for the history alike.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { type DayCount, dayCounts, retainUntil } from '../rate-limit/counter-item.js';
import { MAX_SHARDS, shardKey } from '../rate-limit/shards.js';
import { DAY_SECONDS, dateOf, eachDay, monthOf, parseMonth } from './days.js';

export { retainUntil };

export const USAGE_RETENTION_DEFAULT_DAYS = 400;

export interface DayTotals {
  admitted: number;
  refused: number;
}

const HISTORY_PREFIX = 'usage#';
const historyKey = (customerId: string, month: string) => ({ customerId: `${HISTORY_PREFIX}${customerId}#${month}` });
const DAY_ATTRIBUTE = /^([ar])(\d{2})$/;
const SHARD_KEY = /^shard#\d+#(.+)$/;

/** Every item a customer may be counted on (shards.ts), whatever its limits are now. */
const counterKeys = (customerId: string) => Array.from({ length: MAX_SHARDS }, (_, i) => ({ customerId: shardKey(customerId, i) }));

/**
 * Moves the final day counts `days` of the counter item `itemKey` (one of `customerId`'s) to its history, in one
 * transaction guarded on the values the caller saw. True when they were moved; false when the transaction lost
 * (another request moved them, or changed them, or held the item): they are then still where they were, or in the
 * history, and a later request moves what is left.
 */
export async function recordDays(
  db: DynamoDBDocumentClient,
  table: string,
  customerId: string,
  itemKey: string,
  days: readonly DayCount[],
  retentionDays: number,
): Promise<boolean> {
  if (!days.length) return true;
  const names: Record<string, string> = {};
  const values: Record<string, NativeAttributeValue> = {};
  days.forEach((count, i) => {
    names[`#s${i}`] = count.name;
    values[`:v${i}`] = count.value;
  });
  const byMonth = new Map<string, DayCount[]>();
  for (const count of days) byMonth.set(monthOf(count.dayStart), [...(byMonth.get(monthOf(count.dayStart)) ?? []), count]);
  const history = [...byMonth].map(([month, counts]) => {
    const monthNames: Record<string, string> = {};
    const monthValues: Record<string, NativeAttributeValue> = {
      ':expires': retainUntil(parseMonth(month)?.last ?? counts[0]?.dayStart ?? 0, retentionDays),
    };
    const adds = counts.map((count, i) => {
      monthNames[`#h${i}`] = `${count.kind === 'admitted' ? 'a' : 'r'}${dateOf(count.dayStart).slice(8)}`;
      monthValues[`:h${i}`] = count.value;
      return `#h${i} :h${i}`;
    });
    return {
      Update: {
        TableName: table,
        Key: historyKey(customerId, month),
        UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :expires`,
        ExpressionAttributeNames: monthNames,
        ExpressionAttributeValues: monthValues,
      },
    };
  });
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: { customerId: itemKey },
              UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
              ConditionExpression: Object.keys(names)
                .map((name, i) => `${name} = :v${i}`)
                .join(' AND '),
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
          ...history,
        ],
      }),
      // The move rides on an admitted request, whose own DynamoDB calls have the time budget: it gets a second at
      // most. A move cut off was applied whole or not at all (a transaction), and its guard makes a later one exact.
      { abortSignal: AbortSignal.timeout(MOVE_TIMEOUT_MS) },
    );
    return true;
  } catch (error) {
    const lost =
      error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');
    if (lost) return false;
    throw error;
  }
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
      // A counter item (the customer's own, or one of its shards): its days not moved yet.
      const customerId = SHARD_KEY.exec(key)?.[1] ?? key;
      for (const count of dayCounts(item)) add(totals, customerId, count.dayStart, { [count.kind]: count.value });
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

/** How long moving a finished day may add to the admitted request that carries it. */
const MOVE_TIMEOUT_MS = 1_000;

/** TransactGetItems takes at most 100 items. */
const TRANSACTION_ITEMS = 100;
/** Reads of a month's report under way at once. */
const PARALLEL_READS = 8;
/**
 * TransactGetItems is cancelled while any of its items is being written, and a busy customer's counter items are
 * written by every admitted request: a report tries for about a minute (capped backoff) before it gives up.
 */
const READ_ATTEMPTS = 40;

/** The readers: the admin CLI's `usage`, `usage --month` and `customers show`. */
export function usageHistory(db: DynamoDBDocumentClient, table: string) {
  /**
   * `keys` (at most 100) read in one TransactGetItems: a day moved from a counter item to the history meanwhile is
   * seen on one side only. A read that meets a transaction under way is cancelled; it is tried again.
   */
  async function readTogether(keys: readonly Record<string, string>[]): Promise<Record<string, unknown>[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await db.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: table, Key } })) }));
        return (out.Responses ?? []).flatMap((r) => (r.Item ? [r.Item] : []));
      } catch (error) {
        if (!(error instanceof TransactionCanceledException) || attempt + 1 >= READ_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(3_000, 20 * 2 ** attempt)));
      }
    }
  }

  /** Each group read together (a customer's counter items with its history items), a few groups at once. */
  async function read(groups: readonly Record<string, string>[][]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let next = 0;
    const worker = async () => {
      while (next < groups.length) {
        const group = groups[next++] ?? [];
        items.push(...(await readTogether(group)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, groups.length) }, worker));
    return items;
  }

  /** Groups of whole customers' keys, each group at most 100 keys (one customer's are never split). */
  function grouped(perCustomer: Record<string, string>[][]): Record<string, string>[][] {
    const groups: Record<string, string>[][] = [];
    for (const keys of perCustomer) {
      const last = groups.at(-1);
      if (last && last.length + keys.length <= TRANSACTION_ITEMS) last.push(...keys);
      else groups.push([...keys]);
    }
    return groups;
  }

  return {
    /** One row per day from `first` to `last` (day starts, both included), with that day's totals. */
    async days(customerId: string, first: number, last: number): Promise<DayRow[]> {
      const days = eachDay(first, last);
      const months = [...new Set(days.map(monthOf))];
      // The counter items and the newest months together; a range longer than that reads its oldest months apart.
      const keys = [...counterKeys(customerId), ...months.reverse().map((m) => historyKey(customerId, m))];
      const groups = [keys.slice(0, TRANSACTION_ITEMS)];
      for (let i = TRANSACTION_ITEMS; i < keys.length; i += TRANSACTION_ITEMS) groups.push(keys.slice(i, i + TRANSACTION_ITEMS));
      const totals = collect(await read(groups)).get(customerId);
      return days.map((day) => ({ date: dateOf(day), ...(totals?.get(day) ?? { admitted: 0, refused: 0 }) }));
    },

    /** Each customer's totals for a `YYYY-MM` month, in the order given. */
    async month(customerIds: readonly string[], month: string): Promise<MonthRow[]> {
      const range = parseMonth(month);
      if (!range) throw new Error(`usage history: not a month: ${month}`);
      const totals = collect(await read(grouped(customerIds.map((id) => [...counterKeys(id), historyKey(id, month)]))));
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
