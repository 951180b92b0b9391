/**
 * Per-customer request counters in DynamoDB, exact under any concurrency. One item per customer holds the current
 * minute and day windows, their counts, the refusals of the current minute and any ban:
 *   { customerId, m, mc, d, dc, rm, rc, banUntil, expiresAt }
 * The common case is one conditional UpdateItem that adds 1 to both counts only while both windows are current
 * and below their limits and no ban runs. When it fails, ReturnValuesOnConditionCheckFailure tells us why without
 * another read: a window rolled over (one guarded write starts the new window), a limit is reached (the refusal
 * is counted, and may start a ban), or a ban runs.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Limits } from '../plans.js';
import { currentCounts, DAY, views, type WindowState, type WindowView, windowStarts } from './windows.js';

interface CounterItem {
  customerId: string;
  m?: number;
  mc?: number;
  d?: number;
  dc?: number;
  rm?: number;
  rc?: number;
  banUntil?: number;
  expiresAt?: number;
}

export type Admission =
  | { admitted: true; windows: { minute: WindowView; day: WindowView } }
  | { admitted: false; reason: 'limit'; windows: { minute: WindowView; day: WindowView } }
  | { admitted: false; reason: 'banned'; banUntil: number; windows: { minute: WindowView; day: WindowView } };

export interface UsageSnapshot {
  windows: { minute: WindowView; day: WindowView };
  banUntil: number | null;
}

export type DeprecatedCalls = Record<string, { count: number; last: string }>;

const MAX_ATTEMPTS = 10;
/** Refusals within one UTC minute that start a ban: max(10, the per-minute limit). */
export const banThreshold = (limits: Limits) => Math.max(10, limits.perMinute);

function stateOf(item: CounterItem | undefined): Partial<WindowState> {
  return { minuteStart: item?.m, minuteCount: item?.mc, dayStart: item?.d, dayCount: item?.dc };
}

function oldItem(error: ConditionalCheckFailedException): CounterItem | undefined {
  return error.Item ? (unmarshall(error.Item) as CounterItem) : undefined;
}

const NO_BAN = '(attribute_not_exists(banUntil) OR banUntil <= :now)';

export function counterStore(db: DynamoDBDocumentClient, table: string, options: { banSeconds: number }) {
  async function update(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) {
    return db.send(new UpdateCommand({ TableName: table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...input }));
  }

  /** Counts one refusal in the current minute; starts a ban when the refusals reach the threshold. */
  async function refuse(customerId: string, limits: Limits, now: number, minuteStart: number): Promise<number | undefined> {
    let refusals: number | undefined;
    try {
      const { Attributes } = await update({
        Key: { customerId },
        UpdateExpression: 'ADD rc :one',
        ConditionExpression: `rm = :rm AND ${NO_BAN}`,
        ExpressionAttributeValues: { ':one': 1, ':rm': minuteStart, ':now': now },
        ReturnValues: 'UPDATED_NEW',
      });
      refusals = Attributes?.rc as number;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = oldItem(error);
      if (old?.banUntil && old.banUntil > now) return old.banUntil;
      // First refusal of this minute (or a racing one): start the minute's refusal count.
      try {
        await update({
          Key: { customerId },
          UpdateExpression: 'SET rm = :rm, rc = :one',
          ConditionExpression: `(attribute_not_exists(rm) OR rm <> :rm) AND ${NO_BAN}`,
          ExpressionAttributeValues: { ':one': 1, ':rm': minuteStart, ':now': now },
        });
        refusals = 1;
      } catch (retryError) {
        if (!(retryError instanceof ConditionalCheckFailedException)) throw retryError;
        return refuse(customerId, limits, now, minuteStart);
      }
    }
    if (refusals === undefined || refusals < banThreshold(limits)) return undefined;
    const banUntil = now + options.banSeconds;
    try {
      await update({
        Key: { customerId },
        UpdateExpression: 'SET banUntil = :until, rc = :zero, expiresAt = :expires',
        ConditionExpression: NO_BAN,
        ExpressionAttributeValues: { ':until': banUntil, ':zero': 0, ':now': now, ':expires': banUntil + DAY },
      });
      return banUntil;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A concurrent refusal started the ban first; requests during a ban never extend it.
      return oldItem(error)?.banUntil;
    }
  }

  return {
    /** Admits and counts one request, or refuses it without counting it. */
    async consume(customerId: string, limits: Limits, nowMs: number): Promise<Admission> {
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
          const counted = { minuteStart, dayStart, minuteCount: Attributes?.mc as number, dayCount: Attributes?.dc as number };
          return { admitted: true, windows: views(counted, limits) };
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          const old = oldItem(error);
          if (old?.banUntil && old.banUntil > now) {
            return { admitted: false, reason: 'banned', banUntil: old.banUntil, windows: views(currentCounts(stateOf(old), now), limits) };
          }
          // Windows never move backwards: if another instance's clock is already in a later minute, follow it.
          if (old?.m !== undefined && old.m > minuteStart) {
            now = Math.max(now, old.m);
            continue;
          }
          const counts = currentCounts(stateOf(old), now);
          const current = views(counts, limits);
          if (counts.minuteCount >= limits.perMinute || counts.dayCount >= limits.perDay) {
            const banUntil = await refuse(customerId, limits, now, minuteStart);
            return banUntil
              ? { admitted: false, reason: 'banned', banUntil, windows: current }
              : { admitted: false, reason: 'limit', windows: current };
          }
          // A window rolled over (or this is the customer's first request): start it, guarded on what we saw.
          try {
            await update({
              Key: { customerId },
              UpdateExpression: 'SET m = :m, mc = :mc, d = :d, dc = :dc, expiresAt = :expires',
              ConditionExpression: old
                ? `${old.m === undefined ? 'attribute_not_exists(m)' : 'm = :oldM'} AND ${old.d === undefined ? 'attribute_not_exists(d)' : 'd = :oldD AND dc = :oldDc'} AND ${NO_BAN}`
                : 'attribute_not_exists(customerId)',
              ExpressionAttributeValues: {
                ':m': minuteStart,
                ':mc': counts.minuteCount + 1,
                ':d': dayStart,
                ':dc': counts.dayCount + 1,
                ':expires': dayStart + 2 * DAY,
                ...(old ? { ':now': now } : {}),
                ...(old?.m !== undefined ? { ':oldM': old.m } : {}),
                ...(old?.d !== undefined ? { ':oldD': old.d, ':oldDc': old.dc ?? 0 } : {}),
              },
            });
            const counted = { ...counts, minuteCount: counts.minuteCount + 1, dayCount: counts.dayCount + 1 };
            return { admitted: true, windows: views(counted, limits) };
          } catch (rollError) {
            if (!(rollError instanceof ConditionalCheckFailedException)) throw rollError;
            // Another request rolled the window first: go round again with the fast path.
          }
        }
      }
      throw new Error(`rate limiter: no decision for ${customerId} after ${MAX_ATTEMPTS} attempts`);
    },

    /** The windows and ban as they stand, without counting anything (strongly consistent read). */
    async peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
      const now = Math.floor(nowMs / 1000);
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId }, ConsistentRead: true }));
      const item = Item as CounterItem | undefined;
      return {
        windows: views(currentCounts(stateOf(item), now), limits),
        banUntil: item?.banUntil && item.banUntil > now ? item.banUntil : null,
      };
    },

    /** Calls to deprecated operations by operation id (for operators; the API does not show them). */
    async deprecatedCalls(customerId: string): Promise<DeprecatedCalls> {
      const { Item } = await db.send(
        new GetCommand({ TableName: table, Key: { customerId: deprecatedKey(customerId) }, ConsistentRead: true }),
      );
      return deprecatedCallsOf(Item);
    },

    /** Lifts a ban and forgets the minute's refusals. Returns whether a ban was running. */
    async unban(customerId: string, nowMs: number): Promise<boolean> {
      const { Attributes } = await db
        .send(
          new UpdateCommand({
            TableName: table,
            Key: { customerId },
            UpdateExpression: 'REMOVE banUntil, rm, rc',
            ConditionExpression: 'attribute_exists(customerId)',
            ReturnValues: 'ALL_OLD',
          }),
        )
        .catch((error: unknown) => {
          if (error instanceof ConditionalCheckFailedException) return { Attributes: undefined };
          throw error;
        });
      const banUntil = Attributes?.banUntil as number | undefined;
      return banUntil !== undefined && banUntil > Math.floor(nowMs / 1000);
    },

    /** Counts a call to a deprecated operation, so an operator can see who still uses it (no TTL: kept). */
    async recordDeprecatedCall(customerId: string, operationId: string, nowMs: number): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: table,
          Key: { customerId: deprecatedKey(customerId) },
          UpdateExpression: 'ADD #count :one SET #last = :now',
          ExpressionAttributeNames: { '#count': `count_${operationId}`, '#last': `last_${operationId}` },
          ExpressionAttributeValues: { ':one': 1, ':now': new Date(nowMs).toISOString() },
        }),
      );
    },
  };
}

function deprecatedCallsOf(item: Record<string, unknown> | undefined): DeprecatedCalls {
  const calls: DeprecatedCalls = {};
  for (const [name, value] of Object.entries(item ?? {})) {
    if (name.startsWith('count_')) {
      const operationId = name.slice('count_'.length);
      calls[operationId] = { count: Number(value), last: String(item?.[`last_${operationId}`] ?? '') };
    }
  }
  return calls;
}

function deprecatedKey(customerId: string): string {
  return `deprecated#${customerId}`;
}

export type CounterStore = ReturnType<typeof counterStore>;
