/**
 * The rate limiter on DynamoDB, exact under any concurrency (the item's encoding is counter-item.ts). The common
 * case is one conditional UpdateItem that adds 1 to both counts only while both windows are current and below
 * their limits and no ban runs. When it fails, ReturnValuesOnConditionCheckFailure tells us why without another
 * read: a window rolled over (one guarded write starts the new window; when it ends a day, the same write records
 * that day's totals in the usage history: lib/usage/history.ts), a limit is reached (the refusal is counted, and may
 * start a ban: ban.ts), or a ban runs.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Limits } from '../plans.js';
import {
  closedDay,
  isRolloverInFlight,
  pauseForRollover,
  retainUntil,
  rollOverDay,
  USAGE_RETENTION_DEFAULT_DAYS,
} from '../usage/history.js';
import { type BanOptions, refusals } from './ban.js';
import { counterItem, isConditionFailure, itemOnFailure, NO_BAN, numberAttribute, windowStateOf } from './counter-item.js';
import type { Admission, RateLimiter, UsageSnapshot } from './limiter.js';
import { currentCounts, views, windowStarts } from './windows.js';

const MAX_ATTEMPTS = 10;

export interface LimiterOptions extends BanOptions {
  /** Days a day's totals are kept (USAGE_RETENTION_DAYS); the TTL of the counter and history items. */
  usageRetentionDays?: number;
}

export function dynamoRateLimiter(db: DynamoDBDocumentClient, table: string, options: LimiterOptions): RateLimiter {
  const update = (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) =>
    db.send(new UpdateCommand({ TableName: table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...input }));
  const { refuse } = refusals(db, table, options);
  const retentionDays = options.usageRetentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;

  async function consume(customerId: string, limits: Limits, nowMs: number): Promise<Admission> {
    let now = Math.floor(nowMs / 1000);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { minuteStart, dayStart } = windowStarts(now);
      try {
        const { Attributes } = await update({
          Key: { customerId },
          UpdateExpression: 'SET mc = mc + :one, dc = dc + :one',
          ConditionExpression: `m = :m AND d = :d AND mc < :perMinute AND dc < :perDay AND ${NO_BAN}`,
          ExpressionAttributeValues: {
            ':one': 1,
            ':m': minuteStart,
            ':d': dayStart,
            ':perMinute': limits.perMinute,
            ':perDay': limits.perDay,
            ':now': now,
          },
          ReturnValues: 'UPDATED_NEW',
        });
        const counted = {
          minuteStart,
          dayStart,
          minuteCount: numberAttribute(Attributes, 'mc'),
          dayCount: numberAttribute(Attributes, 'dc'),
        };
        return { admitted: true, windows: views(counted, limits) };
      } catch (error) {
        // Another request's rollover transaction holds the item: DynamoDB refuses writes to it until it is done.
        if (isRolloverInFlight(error)) {
          await pauseForRollover(attempt);
          continue;
        }
        if (!isConditionFailure(error)) throw error;
        const old = itemOnFailure(error);
        if (old?.banUntil && old.banUntil > now) {
          return {
            admitted: false,
            reason: 'banned',
            banUntil: old.banUntil,
            windows: views(currentCounts(windowStateOf(old), now), limits),
          };
        }
        // Windows never move backwards: if another instance's clock is already in a later minute, follow it.
        if (old?.m !== undefined && old.m > minuteStart) {
          now = Math.max(now, old.m);
          continue;
        }
        const counts = currentCounts(windowStateOf(old), now);
        const current = views(counts, limits);
        if (counts.minuteCount >= limits.perMinute || counts.dayCount >= limits.perDay) {
          const banUntil = await refuse(customerId, limits, now, minuteStart);
          return banUntil
            ? { admitted: false, reason: 'banned', banUntil, windows: current }
            : { admitted: false, reason: 'limit', windows: current };
        }
        // A window rolled over (or this is the customer's first request): start it, guarded on what we saw. When it
        // ends a day, the same write records the day's totals (the guard makes them final) and keeps later refusals.
        const closed = closedDay(old, dayStart);
        try {
          const roll = {
            Key: { customerId },
            UpdateExpression: `SET m = :m, mc = :mc, d = :d, dc = :dc, expiresAt = :expires${closed?.refused ? ', rdc = rdc - :closedRdc' : ''}`,
            ConditionExpression: old
              ? `${old.m === undefined ? 'attribute_not_exists(m)' : 'm = :oldM'} AND ${old.d === undefined ? 'attribute_not_exists(d)' : 'd = :oldD AND dc = :oldDc'} AND ${NO_BAN}`
              : 'attribute_not_exists(customerId)',
            ExpressionAttributeValues: {
              ':m': minuteStart,
              ':mc': counts.minuteCount + 1,
              ':d': dayStart,
              ':dc': counts.dayCount + 1,
              ':expires': retainUntil(dayStart, retentionDays),
              ...(old ? { ':now': now } : {}),
              ...(old?.m !== undefined ? { ':oldM': old.m } : {}),
              ...(old?.d !== undefined ? { ':oldD': old.d, ':oldDc': old.dc ?? 0 } : {}),
              ...(closed?.refused ? { ':closedRdc': closed.refused } : {}),
            },
          };
          await (closed ? rollOverDay(db, table, customerId, roll, closed, retentionDays) : update(roll));
          const counted = { ...counts, minuteCount: counts.minuteCount + 1, dayCount: counts.dayCount + 1 };
          return { admitted: true, windows: views(counted, limits) };
        } catch (rollError) {
          if (!isConditionFailure(rollError)) throw rollError;
          // Another request rolled the window first: go round again with the fast path.
        }
      }
    }
    throw new Error(`rate limiter: no decision for ${customerId} after ${MAX_ATTEMPTS} attempts`);
  }

  async function peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
    const now = Math.floor(nowMs / 1000);
    // Strongly consistent: a client reading its status right after a request sees that request counted.
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId }, ConsistentRead: true }));
    const item = counterItem(Item);
    return {
      windows: views(currentCounts(windowStateOf(item), now), limits),
      banUntil: item?.banUntil && item.banUntil > now ? item.banUntil : null,
    };
  }

  async function unban(customerId: string, nowMs: number): Promise<boolean> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: table,
          Key: { customerId },
          UpdateExpression: 'REMOVE banUntil, rm, rc',
          ConditionExpression: 'attribute_exists(customerId)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      const banUntil = counterItem(Attributes)?.banUntil;
      return banUntil !== undefined && banUntil > Math.floor(nowMs / 1000);
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  return { consume, peek, unban };
}
