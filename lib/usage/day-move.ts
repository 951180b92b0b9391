/**
 * Moving a finished day's counts from a counter item to the customer's history item: one TransactWriteItems guarded
 * on the values the admitting write returned, so the move is exactly-once; a move that loses or fails leaves the
 * counts for a later request.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { type DayCount, finishedDays, retainUntil, USAGE_RETENTION_DEFAULT_DAYS } from './day-counts.js';
import { monthOf, parseMonth } from './days.js';
import { historyKey, historyName } from './history-item.js';

/** How long moving a finished day may add to the admitted request that carries it. */
const MOVE_TIMEOUT_MS = 1_000;
/** Day counts one move takes at most (a counter item's write removes as many names at most); more wait for the next. */
const DAYS_PER_MOVE = 16;

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
      monthNames[`#h${i}`] = historyName(count);
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

export interface DayMoverOptions {
  /** Days a day's totals are kept (USAGE_RETENTION_DAYS): the history item's TTL. */
  retentionDays?: number;
  /** What to do with an error of a move: the request that carried it was admitted all the same. */
  onError?: (error: unknown) => void;
}

/** The moves of one process (a Lambda instance): concurrent requests on one item leave the move to the first. */
export function dayMover(db: DynamoDBDocumentClient, table: string, options: DayMoverOptions = {}) {
  const retentionDays = options.retentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;
  /** Items whose finished days this instance is moving. */
  const moving = new Set<string>();

  return {
    /** Moves the finished days of `item` (counter item `key`, one of `customerId`'s) as of `dayStart`, if any. */
    async move(customerId: string, key: string, item: Record<string, unknown> | undefined, dayStart: number): Promise<void> {
      const days = finishedDays(item, dayStart).slice(0, DAYS_PER_MOVE);
      if (!days.length || moving.has(key)) return;
      moving.add(key);
      try {
        await recordDays(db, table, customerId, key, days, retentionDays);
      } catch (error) {
        options.onError?.(error);
      } finally {
        moving.delete(key);
      }
    },
  };
}
