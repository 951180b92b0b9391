/**
 * Reads up to 100 items of one table by key (BatchGetItem's limit), strongly consistent. DynamoDB may leave keys
 * unprocessed under load; those are asked for again after a short jittered backoff, as AWS advises, a few times at
 * most, and a read that still lacks some fails rather than answer with part of the items.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const ATTEMPTS = 5;
const MAX_KEYS = 100;
/** The backoff before attempt n (from 1) is up to BACKOFF_MS × 2^n: at most 300 ms in all. */
const BACKOFF_MS = 10;

/** The items found (in no particular order; keys without an item are left out). */
export async function getItems(
  db: DynamoDBDocumentClient,
  table: string,
  keys: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  if (keys.length > MAX_KEYS) throw new Error(`${table}: ${keys.length} keys asked for at once; BatchGetItem takes ${MAX_KEYS}`);
  const found: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length && attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * 2 ** attempt));
    const { Responses, UnprocessedKeys } = await db.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    pending = UnprocessedKeys?.[table]?.Keys ?? [];
  }
  if (pending.length) {
    throw new Error(`${table}: ${pending.length} of ${keys.length} items stayed unprocessed after ${ATTEMPTS} attempts`);
  }
  return found;
}
