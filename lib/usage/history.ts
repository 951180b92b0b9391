/**
 * Each customer's requests per UTC day, admitted and refused: the basis of a bill, shown by the admin CLI. This
 * module reads it; day-counts.ts and day-move.ts say how a day gets there.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { type RetryPolicy, retrying } from '../dynamo/backoff.js';
import { dayCounts } from './day-counts.js';
import { dateOf, eachDay, monthOf, parseMonth } from './days.js';
import { historyDays, historyKey, isHistoryKey } from './history-item.js';

export interface DayTotals {
  admitted: number;
  refused: number;
}

export interface DayRow extends DayTotals {
  date: string;
}

export interface MonthRow extends DayTotals {
  customerId: string;
  /** Days with at least one admitted or refused request. */
  activeDays: number;
}

export interface UsageHistoryOptions {
  /** The keys of every counter item a customer may be counted on (lib/rate-limit/shards.ts, `counterKeys`). */
  counterKeys: (customerId: string) => readonly string[];
}

/** Totals by customer and day start, gathered from history items and live counters. */
type Totals = Map<string, Map<number, DayTotals>>;

function add(totals: Totals, customerId: string, dayStart: number, part: Partial<DayTotals>): void {
  const days = totals.get(customerId) ?? new Map<number, DayTotals>();
  totals.set(customerId, days);
  const sum = days.get(dayStart) ?? { admitted: 0, refused: 0 };
  days.set(dayStart, { admitted: sum.admitted + (part.admitted ?? 0), refused: sum.refused + (part.refused ?? 0) });
}

/** `owners` names the customer of each counter item read; history items name theirs in their key. */
function collect(items: Record<string, unknown>[], owners: ReadonlyMap<string, string>): Totals {
  const totals: Totals = new Map();
  for (const item of items) {
    const key = item.customerId;
    if (typeof key !== 'string') continue;
    const { customerId, days } = isHistoryKey(key) ? historyDays(item) : { customerId: owners.get(key), days: dayCounts(item) };
    if (customerId === undefined) continue;
    for (const count of days) add(totals, customerId, count.dayStart, { [count.kind]: count.value });
  }
  return totals;
}

/** TransactGetItems takes at most 100 items. */
const TRANSACTION_ITEMS = 100;
const PARALLEL_READS = 8;
/**
 * TransactGetItems is cancelled while any of its items is being written, as a busy customer's are: an operator's
 * report tries long, about a minute, before it gives up.
 */
const WHILE_ITEMS_ARE_WRITTEN: RetryPolicy = {
  attempts: 40,
  baseMs: 20,
  capMs: 3_000,
  retryable: (error) => error instanceof TransactionCanceledException,
};

/**
 * Readers add what is still on the counter items (every possible shard, so a plan change loses nothing) to what is in
 * the history, read together in one TransactGetItems, which never sees a move half done. Refused requests are the
 * 429 RATE_LIMIT_EXCEEDED ones, counted with the ban's batches (refusal-cache.ts); those during a ban are not counted.
 */
export function usageHistory(db: DynamoDBDocumentClient, table: string, options: UsageHistoryOptions) {
  function counterItems(customerId: string, owners: Map<string, string>): Record<string, string>[] {
    return options.counterKeys(customerId).map((key) => {
      owners.set(key, customerId);
      return { customerId: key };
    });
  }

  /** `keys` (at most 100) read in one TransactGetItems; one cancelled by a transaction under way is tried again. */
  function readTogether(keys: readonly Record<string, string>[]): Promise<Record<string, unknown>[]> {
    return retrying(async () => {
      const out = await db.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: table, Key } })) }));
      return (out.Responses ?? []).flatMap((r) => (r.Item ? [r.Item] : []));
    }, WHILE_ITEMS_ARE_WRITTEN);
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
      const owners = new Map<string, string>();
      // The counter items and the newest months together; a range longer than that reads its oldest months apart.
      const keys = [...counterItems(customerId, owners), ...months.reverse().map((m) => historyKey(customerId, m))];
      const groups = [keys.slice(0, TRANSACTION_ITEMS)];
      for (let i = TRANSACTION_ITEMS; i < keys.length; i += TRANSACTION_ITEMS) groups.push(keys.slice(i, i + TRANSACTION_ITEMS));
      const totals = collect(await read(groups), owners).get(customerId);
      return days.map((day) => ({ date: dateOf(day), ...(totals?.get(day) ?? { admitted: 0, refused: 0 }) }));
    },

    /** Each customer's totals for a `YYYY-MM` month, in the order given. */
    async month(customerIds: readonly string[], month: string): Promise<MonthRow[]> {
      const range = parseMonth(month);
      if (!range) throw new Error(`usage history: not a month: ${month}`);
      const owners = new Map<string, string>();
      const perCustomer = customerIds.map((id) => [...counterItems(id, owners), historyKey(id, month)]);
      const totals = collect(await read(grouped(perCustomer)), owners);
      return customerIds.map((customerId) => {
        const inMonth = [...(totals.get(customerId) ?? [])].filter(([day]) => day >= range.first && day <= range.last);
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
