/**
 * The operator's unban (the admin CLI's `unban`): lifts a ban in force and forgets the minute's refusals. An admin
 * write, kept off the request path's RateLimiter so that no operation bundle carries it (test/bundles). Instances
 * that remember the ban see it lifted within BAN_RECHECK_MS (refusal-cache.ts).
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { counterItem, isConditionFailure, placeholders, refusalCountName, retryingConflicts, UNBANNED_AT_NAME } from './counter-item.js';
import { MAX_SHARDS, shardKey } from './shards.js';

export function banLifter(db: DynamoDBDocumentClient, table: string) {
  /**
   * Lifts a ban in force at `nowMs`, and only such a ban: each write's condition is the ban itself, so a customer
   * not banned is left exactly as it was, with no unban's time that would keep its refusals from counting (ban.ts).
   */
  async function unban(customerId: string, nowMs: number): Promise<boolean> {
    const now = Math.floor(nowMs / 1000);
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId }, ConsistentRead: true }));
    // The read only names the refusal counts to remove (so the next refusal starts no ban at once); the unban's time
    // stays, so refusals an instance still holds from before it are left out when written (ban.ts).
    const home = counterItem(Item);
    const names: Record<string, string> = { '#unbanned': UNBANNED_AT_NAME };
    const counts = Object.keys(home ?? {}).filter((name) => name === refusalCountName(Number(name.slice(1))));
    const liftedHome = await liftBan(customerId, now, {
      UpdateExpression: `SET #unbanned = :at REMOVE ${['banUntil', ...placeholders(counts, names)].join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':at': nowMs },
    });
    // The customer's other items, if it is sharded (the CLI does not know its shard count: try them all).
    const liftedShards = await Promise.all(
      Array.from({ length: MAX_SHARDS - 1 }, (_, i) => liftBan(shardKey(customerId, i + 1), now, { UpdateExpression: 'REMOVE banUntil' })),
    );
    return liftedHome || liftedShards.includes(true);
  }

  /** One item's update, made only while a ban runs on it at `now` (a ban begun since the read included). */
  async function liftBan(
    key: string,
    now: number,
    update: Pick<UpdateCommandInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
  ): Promise<boolean> {
    try {
      // A day move's transaction on the same item can conflict with the write, as with every write to it.
      await retryingConflicts(() =>
        db.send(
          new UpdateCommand({
            TableName: table,
            Key: { customerId: key },
            ...update,
            ConditionExpression: 'banUntil > :now',
            ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':now': now },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  }

  return { unban };
}
