/**
 * Reads up to 100 items of one table by key (BatchGetItem's limit), strongly consistent. DynamoDB may leave keys
 * unprocessed under load; those are asked for again after a short jittered backoff (backoff.ts), as AWS advises, a
 * few times at most, and a read that still lacks some fails rather than answer with part of the items.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type RetryPolicy, retrying } from './backoff.js';

const MAX_KEYS = 100;

/** Keys left unprocessed by an attempt: asked for again, and the read's error once the attempts are spent. */
class Unprocessed extends Error {}

/** A customer's request waits on the read: waits of 20 ms doubling to 160 ms, 300 ms in all at most. */
const UNPROCESSED_KEYS: RetryPolicy = { attempts: 5, baseMs: 20, capMs: 160, retryable: (error) => error instanceof Unprocessed };

/** The items found (in no particular order; keys without an item are left out). */
export async function getItems(
  db: DynamoDBDocumentClient,
  table: string,
  keys: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  if (keys.length > MAX_KEYS) throw new Error(`${table}: ${keys.length} keys asked for at once; BatchGetItem takes ${MAX_KEYS}`);
  const found: Record<string, unknown>[] = [];
  let pending = keys;
  await retrying(async () => {
    const { Responses, UnprocessedKeys } = await db.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    pending = UnprocessedKeys?.[table]?.Keys ?? [];
    if (pending.length) {
      throw new Unprocessed(
        `${table}: ${pending.length} of ${keys.length} items stayed unprocessed after ${UNPROCESSED_KEYS.attempts} attempts`,
      );
    }
  }, UNPROCESSED_KEYS);
  return found;
}
