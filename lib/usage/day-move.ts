/**
 * Moving a finished day's counts from a counter item to the customer's history item: one TransactWriteItems guarded
 * on the values the mover read, so the move is exactly-once. Only the usage sweep moves days; no request waits for it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { type DayCount, retainUntil } from './day-counts.js';
import { monthOf, parseMonth } from './days.js';
import { historyKey, historyName } from './history-item.js';

/** Day counts one move takes at most, so its expressions stay small; an item holding more takes several moves. */
export const DAYS_PER_MOVE = 16;

/**
 * Moves `days` of the counter item `itemKey` (one of `customerId`'s) to its history. False when the transaction lost
 * (another mover, a late write, or a write holding the item): a later move takes what is left.
 */
export async function recordDays(
  db: DynamoDBDocumentClient,
  table: string,
  customerId: string,
  itemKey: string,
  days: readonly DayCount[],
  retentionDays: number,
  signal?: AbortSignal,
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
      ':historyExpires': retainUntil(parseMonth(month)?.last ?? counts[0]?.dayStart ?? 0, retentionDays),
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
        UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :historyExpires`,
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
              ConditionExpression: days.map((_, i) => `#s${i} = :v${i}`).join(' AND '),
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
          ...history,
        ],
      }),
      { abortSignal: signal },
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
