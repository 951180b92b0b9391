/**
 * Temporary bans (docs/api.md, "Rate limits"): when a customer's refused requests within one UTC minute reach
 * max(10, its per-minute limit), all its keys are banned for BAN_SECONDS; requests during a ban never extend it.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Limits } from '../plans.js';
import { USAGE_RETENTION_DEFAULT_DAYS } from '../usage/day-counts.js';
import {
  type CounterItem,
  counterItem,
  dayRefusalName,
  isConditionFailure,
  itemOnFailure,
  NO_BAN,
  numberAttribute,
  refusalCountName,
  retainUntil,
  retryingConflicts,
  runningBan,
  UNBANNED_AT_NAME,
} from './counter-item.js';
import type { RefusalCount } from './limiter.js';
import { shardKey } from './shards.js';
import { DAY, MINUTE, windowStarts } from './windows.js';

export const banThreshold = (limits: Limits) => Math.max(10, limits.perMinute);

export interface BanOptions {
  banSeconds: number;
  /** Days a day's totals are kept (USAGE_RETENTION_DAYS): the TTL of the counter items and the history. */
  usageRetentionDays?: number;
}

function unbannedAt(item: CounterItem | undefined): { unbannedAtMs?: number } {
  const at = item?.[UNBANNED_AT_NAME];
  return at === undefined ? {} : { unbannedAtMs: at };
}

/**
 * Counting refusals is one `ADD` to the minute's attribute (r<minuteStart>), which DynamoDB serialises, returning
 * each total: exactly one addition crosses the threshold, and only it writes the ban (on every item of the customer).
 * The same addition counts the day's refusals for the usage history (x<dayStart>). Its one condition is that the batch
 * began at or after the last unban (`unbannedAtMs`, lift-ban.ts).
 */
export function refusals(db: DynamoDBDocumentClient, table: string, options: BanOptions) {
  const retentionDays = options.usageRetentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;

  /** Starts a ban on each of the customer's `shards` items unless one runs; the end of the ban in force. */
  async function ban(customerId: string, shards: number, now: number): Promise<number | undefined> {
    const banUntil = now + options.banSeconds;
    // A new item (a shard not written yet) lives past the ban; an existing one keeps its TTL (never shortened).
    const expires = Math.max(retainUntil(windowStarts(now).dayStart, retentionDays), banUntil + DAY);
    const ends = await Promise.all(
      Array.from({ length: shards }, async (_, i) => {
        try {
          await retryingConflicts(() =>
            db.send(
              new UpdateCommand({
                TableName: table,
                Key: { customerId: shardKey(customerId, i) },
                UpdateExpression: 'SET banUntil = :until, expiresAt = if_not_exists(expiresAt, :expires)',
                ConditionExpression: NO_BAN,
                ExpressionAttributeValues: { ':until': banUntil, ':now': now, ':expires': expires },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              }),
            ),
          );
          return banUntil;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          // A ban already runs (an addition after an unban can cross again); it is never extended.
          return itemOnFailure(error)?.banUntil;
        }
      }),
    );
    return ends[0];
  }

  async function countRefusals(
    customerId: string,
    limits: Limits,
    shards: number,
    count: number,
    minuteStart: number,
    now: number,
    firstRefusalMs: number = now * 1000,
  ): Promise<RefusalCount> {
    const dayRefusals = { '#x': dayRefusalName(windowStarts(minuteStart).dayStart) };
    // The TTL becomes the retention after today, as an admission sets it.
    const expires = { ':n': count, ':expires': retainUntil(windowStarts(now).dayStart, retentionDays) };
    try {
      const { Attributes } = await retryingConflicts(() =>
        db.send(
          new UpdateCommand({
            TableName: table,
            Key: { customerId },
            // The count of two minutes ago goes: no instance's clock is that far behind.
            UpdateExpression: 'ADD #r :n, #x :n SET expiresAt = :expires REMOVE #old',
            ConditionExpression: 'attribute_not_exists(#unbanned) OR #unbanned <= :first',
            ExpressionAttributeNames: {
              '#r': refusalCountName(minuteStart),
              ...dayRefusals,
              '#old': refusalCountName(minuteStart - 2 * MINUTE),
              '#unbanned': UNBANNED_AT_NAME,
            },
            ExpressionAttributeValues: { ...expires, ':first': firstRefusalMs },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      const item = counterItem(Attributes);
      const total = numberAttribute(Attributes, refusalCountName(minuteStart));
      const threshold = banThreshold(limits);
      const running = runningBan(item, now);
      const crossed = total >= threshold && total - count < threshold;
      return { count: total, banUntil: running ?? (crossed ? await ban(customerId, shards, now) : undefined), ...unbannedAt(item) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A batch pending when the ban was lifted does not count toward a new ban; the usage history still gets it.
      await retryingConflicts(() =>
        db.send(
          new UpdateCommand({
            TableName: table,
            Key: { customerId },
            UpdateExpression: 'ADD #x :n SET expiresAt = :expires',
            ExpressionAttributeNames: dayRefusals,
            ExpressionAttributeValues: expires,
          }),
        ),
      );
      const old = itemOnFailure(error);
      return { count: old?.[refusalCountName(minuteStart)] ?? 0, banUntil: runningBan(old, now), ...unbannedAt(old) };
    }
  }

  return { countRefusals };
}
