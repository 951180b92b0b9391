/**
 * Temporary bans (CONTRACT.md, "Limits"): when a customer's refused requests within one UTC minute reach
 * max(10, its per-minute limit), all its keys are banned for BAN_SECONDS; requests during a ban never extend it.
 *
 * Counting refusals is one unconditional write: the count of a minute is an attribute named after that minute
 * (r<minuteStart>, counter-item.ts), so `ADD` needs no condition, never fails and never races; DynamoDB serialises
 * the additions and returns each one's total. Exactly one addition moves the total from below the threshold to at
 * or above it, and only that one writes the ban (on every counter item of the customer, since each admits on its
 * own). A refusal therefore costs at most one write toward the ban, and the threshold stays exact.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Limits } from '../plans.js';
import { counterItem, isConditionFailure, itemOnFailure, NO_BAN, numberAttribute, refusalCountName } from './counter-item.js';
import type { RefusalCount } from './limiter.js';
import { shardKey } from './shards.js';
import { DAY, MINUTE } from './windows.js';

/** Refusals within one UTC minute that start a ban. */
export const banThreshold = (limits: Limits) => Math.max(10, limits.perMinute);

export interface BanOptions {
  banSeconds: number;
}

export function refusals(db: DynamoDBDocumentClient, table: string, options: BanOptions) {
  /** Starts a ban on each of the customer's `shards` items unless one runs; the end of the ban in force. */
  async function ban(customerId: string, shards: number, now: number): Promise<number | undefined> {
    const banUntil = now + options.banSeconds;
    const expires = Math.max(now - (now % DAY) + 2 * DAY, banUntil + DAY);
    const ends = await Promise.all(
      Array.from({ length: shards }, async (_, i) => {
        try {
          await db.send(
            new UpdateCommand({
              TableName: table,
              Key: { customerId: shardKey(customerId, i) },
              UpdateExpression: 'SET banUntil = :until, expiresAt = :expires',
              ConditionExpression: NO_BAN,
              ExpressionAttributeValues: { ':until': banUntil, ':now': now, ':expires': expires },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
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
  ): Promise<RefusalCount> {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { customerId },
        // The count of two minutes ago goes with it: no instance's clock is that far behind (counter-item.ts).
        UpdateExpression: 'ADD #r :n SET expiresAt = if_not_exists(expiresAt, :expires) REMOVE #old',
        ExpressionAttributeNames: { '#r': refusalCountName(minuteStart), '#old': refusalCountName(minuteStart - 2 * MINUTE) },
        ExpressionAttributeValues: { ':n': count, ':expires': minuteStart - (minuteStart % DAY) + 2 * DAY },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = counterItem(Attributes);
    const total = numberAttribute(Attributes, refusalCountName(minuteStart));
    const threshold = banThreshold(limits);
    const running = item?.banUntil !== undefined && item.banUntil > now ? item.banUntil : undefined;
    if (total >= threshold && total - count < threshold) return { count: total, banUntil: running ?? (await ban(customerId, shards, now)) };
    return { count: total, banUntil: running };
  }

  return { countRefusals };
}
