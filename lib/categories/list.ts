/** Listing categories, in id order; apart from store.ts so listCategories' bundle lacks the NFKC_Casefold table. */
import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { hotClient } from '../dynamo/client.js';
import { CATEGORY_PK } from './keys.js';
import type { Category } from './schema.js';

export function categoryList(db: DynamoDBDocumentClient, table: string) {
  const hot = hotClient(db);
  async function list(): Promise<Category[]> {
    const categories: Category[] = [];
    let startKey: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await hot.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: CATEGORY_PK } },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) categories.push(toCategory(unmarshall(item)));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return categories;
  }
  return { list };
}

/** The API's view of a stored category: never its creator nor its creation time. */
function toCategory(item: Record<string, unknown>): Category {
  return {
    id: Number(item.id),
    name: String(item.name),
    ...(typeof item.description === 'string' ? { description: item.description } : {}),
  };
}
