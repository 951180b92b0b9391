/**
 * Temporary bans (CONTRACT.md, "Limits"): when a customer's refused requests within one UTC minute reach
 * max(10, its per-minute limit), all its keys are banned for BAN_SECONDS; requests during a ban never extend it.
 * This module counts one refusal and starts the ban when the count reaches the threshold.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Limits } from '../plans.js';
import { isConditionFailure, itemOnFailure, NO_BAN, numberAttribute } from './counter-item.js';
import { DAY } from './windows.js';

/** Refusals within one UTC minute that start a ban. */
export const banThreshold = (limits: Limits) => Math.max(10, limits.perMinute);

export interface BanOptions {
  banSeconds: number;
}

export function refusals(db: DynamoDBDocumentClient, table: string, options: BanOptions) {
  const update = (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) =>
    db.send(new UpdateCommand({ TableName: table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...input }));

  /** Starts a ban unless one already runs; returns when the ban in force ends. */
  async function ban(customerId: string, now: number): Promise<number | undefined> {
    const banUntil = now + options.banSeconds;
    try {
      await update({
        Key: { customerId },
        // The item keeps the rollover's TTL: it may hold a day's totals not yet in the usage history.
        UpdateExpression: 'SET banUntil = :until, rc = :zero, expiresAt = if_not_exists(expiresAt, :expires)',
        ConditionExpression: NO_BAN,
        ExpressionAttributeValues: { ':until': banUntil, ':zero': 0, ':now': now, ':expires': banUntil + DAY },
      });
      return banUntil;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A concurrent refusal started the ban first; requests during a ban never extend it.
      return itemOnFailure(error)?.banUntil;
    }
  }

  /** Counts one refusal in the current minute; returns the end of the ban it started or found, if any. */
  async function refuse(customerId: string, limits: Limits, now: number, minuteStart: number): Promise<number | undefined> {
    let count: number;
    try {
      const { Attributes } = await update({
        Key: { customerId },
        // rdc: the day's refusals, for the usage history.
        UpdateExpression: 'ADD rc :one, rdc :one',
        ConditionExpression: `rm = :rm AND ${NO_BAN}`,
        ExpressionAttributeValues: { ':one': 1, ':rm': minuteStart, ':now': now },
        ReturnValues: 'UPDATED_NEW',
      });
      count = numberAttribute(Attributes, 'rc');
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = itemOnFailure(error);
      if (old?.banUntil && old.banUntil > now) return old.banUntil;
      // First refusal of this minute (or a racing one): start the minute's refusal count.
      try {
        await update({
          Key: { customerId },
          UpdateExpression: 'SET rm = :rm, rc = :one ADD rdc :one',
          ConditionExpression: `(attribute_not_exists(rm) OR rm <> :rm) AND ${NO_BAN}`,
          ExpressionAttributeValues: { ':one': 1, ':rm': minuteStart, ':now': now },
        });
        count = 1;
      } catch (retryError) {
        if (!isConditionFailure(retryError)) throw retryError;
        return refuse(customerId, limits, now, minuteStart);
      }
    }
    return count < banThreshold(limits) ? undefined : ban(customerId, now);
  }

  return { refuse };
}
