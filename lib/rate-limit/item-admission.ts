/**
 * Admission on one counter item: one conditional UpdateItem that adds 1 to the minute's and the day's counts while
 * both are below the item's share and no ban runs; a refusal returns the item (ReturnValuesOnConditionCheckFailure)
 * so a ban is told from a used-up window without a read. The same write removes stale names, counts a deprecated
 * call (no second write; a refused call is not counted) and keeps the TTL.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { attributeValues, hotClient } from '../dynamo/client.js';
import type { Limits } from '../plans.js';
import {
  callCountName,
  counterItem,
  countsOf,
  dayCountName,
  type ItemCounts,
  isConditionFailure,
  itemOnFailure,
  lastCallName,
  minuteCountName,
  NO_BAN,
  removeClause,
  retainUntil,
  retryingConflicts,
  type StaleNameMemory,
} from './counter-item.js';
import { windowStarts } from './windows.js';

export interface ItemAdmissionOptions {
  /** Days a day's totals are kept: the item's TTL after its last day. */
  retentionDays: number;
  staleNames: StaleNameMemory;
}

export type ItemOutcome = { outcome: 'admitted' | 'limit' | 'banned'; counts: ItemCounts };

export function itemAdmission(db: DynamoDBDocumentClient, table: string, options: ItemAdmissionOptions) {
  const hot = hotClient(db);
  return async function admitOn(key: string, share: Limits, now: number, callOf: string | undefined): Promise<ItemOutcome> {
    const { minuteStart, dayStart } = windowStarts(now);
    const names: Record<string, string> = { '#m': minuteCountName(minuteStart), '#d': dayCountName(dayStart) };
    if (callOf !== undefined) {
      names['#calls'] = callCountName(callOf);
      names['#lastCall'] = lastCallName(callOf);
    }
    const call = callOf === undefined ? { add: '', set: '' } : { add: ', #calls :one', set: ', #lastCall = :now' };
    const remove = removeClause(options.staleNames.of(key), names);
    try {
      const { Attributes } = await retryingConflicts(() =>
        hot.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { customerId: { S: key } },
            UpdateExpression: `ADD #m :one, #d :one${call.add} SET expiresAt = :expires${call.set}${remove}`,
            ConditionExpression: `(attribute_not_exists(#m) OR #m < :perMinute) AND (attribute_not_exists(#d) OR #d < :perDay) AND ${NO_BAN}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: attributeValues({
              ':one': 1,
              ':perMinute': share.perMinute,
              ':perDay': share.perDay,
              ':now': now,
              // The item keeps its days not yet moved to the history as long as the history keeps them.
              ':expires': retainUntil(dayStart, options.retentionDays),
            }),
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      const item = counterItem(Attributes && unmarshall(Attributes));
      options.staleNames.note(key, item, minuteStart);
      return { outcome: 'admitted', counts: countsOf(item, minuteStart, dayStart, now) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = itemOnFailure(error);
      options.staleNames.note(key, old, minuteStart);
      const counts = countsOf(old, minuteStart, dayStart, now);
      return { outcome: counts.banUntil ? 'banned' : 'limit', counts };
    }
  };
}

export type AdmitOnItem = ReturnType<typeof itemAdmission>;
