/**
 * The minimal server's DynamoDB calls for GET /v1/categories, bare (no framework, no validation): the counter's
 * conditional UpdateItem, as lib/rate-limit/item-admission.ts sends it for an admitted request, and the categories
 * Query, in parallel; used by minimal-server.ts and handler-compare.ts.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { retainUntil, USAGE_RETENTION_DEFAULT_DAYS } from '../../lib/usage/day-counts.js';

/** A variable the bench sets (tables, port): absent is a bench bug, not an empty name. */
export function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`minimal server: ${name} is not set`);
  return value;
}

async function count(db: DynamoDBDocumentClient, customerId: string, perMinute: number, perDay: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  const m = now - (now % 60);
  const d = now - (now % 86400);
  try {
    // The request path's write, expressions and returned values alike: the counts named after their windows, the ban
    // condition, the TTL, the item returned (it gives the answer's rate-limit headers). Without ALL_NEW, SET expiresAt
    // and the ban condition this server read 1.05 times its requests a second with them, median of 7 runs
    // (docs/performance.md, "The minimal server's write").
    await db.send(
      new UpdateCommand({
        TableName: env('COUNTERS_TABLE'),
        Key: { customerId },
        UpdateExpression: 'ADD #m :one, #d :one SET expiresAt = :expires',
        ConditionExpression:
          '(attribute_not_exists(#m) OR #m < :perMinute) AND (attribute_not_exists(#d) OR #d < :perDay) AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
        ExpressionAttributeNames: { '#m': `m${m}`, '#d': `d${d}` },
        ExpressionAttributeValues: {
          ':one': 1,
          ':perMinute': perMinute,
          ':perDay': perDay,
          ':now': now,
          // The TTL at USAGE_RETENTION_DAYS' default, which the bench does not set.
          ':expires': retainUntil(d, USAGE_RETENTION_DEFAULT_DAYS),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** The answer's status and body: 429 when the counter refuses, else 200 and the categories. */
export async function listCategoriesBare(
  db: DynamoDBDocumentClient,
  customer: { customerId: string; perMinute: number; perDay: number },
): Promise<{ status: 200 | 429; body: string }> {
  const [admitted, page] = await Promise.all([
    count(db, customer.customerId, customer.perMinute, customer.perDay),
    db.send(
      new QueryCommand({
        TableName: env('CATEGORIES_TABLE'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'CATEGORY' },
      }),
    ),
  ]);
  if (!admitted) return { status: 429, body: '{"code":"RATE_LIMIT_EXCEEDED"}' };
  const body = JSON.stringify(
    (page.Items ?? []).map((i) => ({ id: i.id, name: i.name, ...(i.description ? { description: i.description } : {}) })),
  );
  return { status: 200, body };
}
