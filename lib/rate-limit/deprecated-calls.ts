/**
 * Calls to deprecated operations per customer, so an operator can see who still uses them before the sunset
 * (shown by the CLI's `usage`; the API does not show them). Kept in the counters table under their own key,
 * without a TTL.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export type DeprecatedCalls = Record<string, { count: number; last: string }>;

const keyOf = (customerId: string) => ({ customerId: `deprecated#${customerId}` });

export function deprecatedCallStore(db: DynamoDBDocumentClient, table: string) {
  return {
    async record(customerId: string, operationId: string, nowMs: number): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: table,
          Key: keyOf(customerId),
          UpdateExpression: 'ADD #count :one SET #last = :now',
          ExpressionAttributeNames: { '#count': `count_${operationId}`, '#last': `last_${operationId}` },
          ExpressionAttributeValues: { ':one': 1, ':now': new Date(nowMs).toISOString() },
        }),
      );
    },

    /** By operation id: how many calls, and the last one's time. */
    async read(customerId: string): Promise<DeprecatedCalls> {
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: keyOf(customerId), ConsistentRead: true }));
      const calls: DeprecatedCalls = {};
      for (const [name, value] of Object.entries(Item ?? {})) {
        if (name.startsWith('count_')) {
          const operationId = name.slice('count_'.length);
          calls[operationId] = { count: Number(value), last: String(Item?.[`last_${operationId}`] ?? '') };
        }
      }
      return calls;
    },
  };
}

export type DeprecatedCallStore = ReturnType<typeof deprecatedCallStore>;
