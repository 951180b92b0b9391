/**
 * Reads up to 100 items of one table by key, strongly consistent, in one BatchGetItem. DynamoDB may leave keys
 * unprocessed under load; those are asked for again (a few times at most), and a read that still lacks some fails
 * rather than answer with part of the items.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const ATTEMPTS = 5;

/** The items found (in no particular order; keys without an item are left out). */
export async function getItems(
  db: DynamoDBDocumentClient,
  table: string,
  keys: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length && attempt < ATTEMPTS; attempt++) {
    const { Responses, UnprocessedKeys } = await db.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    pending = UnprocessedKeys?.[table]?.Keys ?? [];
  }
  if (pending.length) throw new Error(`${table}: ${pending.length} of ${keys.length} items stayed unprocessed after ${ATTEMPTS} attempts`);
  return found;
}
