/** Creates the tables of TABLES (lib/dynamo/tables.ts) that are missing, on DynamoDB Local or any endpoint. */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type TableSpec } from '../../lib/dynamo/tables.js';

export async function ensureTables(client: DynamoDBClient, names: Record<TableSpec['envVar'], string>): Promise<void> {
  await Promise.all(TABLES.map((spec) => ensureTable(client, spec, names[spec.envVar])));
}

async function ensureTable(client: DynamoDBClient, spec: TableSpec, name: string): Promise<void> {
  const attributes = new Map<string, 'S' | 'N'>();
  const keys = [spec.partitionKey, ...(spec.sortKey ? [spec.sortKey] : []), ...(spec.indexes ?? []).map((i) => i.partitionKey)];
  for (const key of keys) attributes.set(key.name, key.type);
  const input: CreateTableCommandInput = {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: [
      { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
      ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    ...(spec.indexes?.length
      ? {
          GlobalSecondaryIndexes: spec.indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: [{ AttributeName: index.partitionKey.name, KeyType: 'HASH' as const }],
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
  try {
    await client.send(new CreateTableCommand(input));
    if (spec.ttlAttribute)
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: spec.ttlAttribute, Enabled: true },
        }),
      );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}
