/**
 * hotClient (lib/dynamo/client.ts): the low-level client the request path's calls go through, whose middleware stack
 * is resolved once per command class. It sends through its document client's stack, so what the tests and the bench
 * attach there counts its calls, and each send still carries its own input.
 */
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient, createDynamoClient, hotClient } from '../../lib/dynamo/client.js';
import { recordedClient } from '../support/dynamo-calls.js';

const TABLE = process.env.COUNTERS_TABLE ?? '';
const prefix = `hot-client-${Date.now().toString(36)}`;

const add = (customerId: string, n: number) =>
  new UpdateItemCommand({
    TableName: TABLE,
    Key: { customerId: { S: customerId } },
    UpdateExpression: 'ADD n :n',
    ExpressionAttributeValues: { ':n': { N: String(n) } },
    ReturnValues: 'ALL_NEW',
  });

describe('hotClient', () => {
  it('resolves its stack once per command class, which the document client does not', () => {
    const { db } = recordedClient();
    const hot = hotClient(db);
    expect(hotClient(db)).toBe(hot);
    expect(hot.config.cacheMiddleware).toBe(true);
    expect(db.config.cacheMiddleware).not.toBe(true);
  });

  it('sends through the document client’s stack: a middleware added there before its first call sees each call once', async () => {
    const { db, recorder } = recordedClient();
    const hot = hotClient(db);
    await hot.send(add(`${prefix}-a`, 1));
    await hot.send(add(`${prefix}-b`, 1));
    await db.send(new GetCommand({ TableName: TABLE, Key: { customerId: `${prefix}-a` } }));
    expect(recorder.take().map((call) => [call.command, call.key])).toEqual([
      ['UpdateItemCommand', `${prefix}-a`],
      ['UpdateItemCommand', `${prefix}-b`],
      ['GetItemCommand', `${prefix}-a`],
    ]);
  });

  it('answers each send of one command class with its own input, concurrent or not', async () => {
    const hot = hotClient(createDocumentClient(createDynamoClient(process.env.DYNAMODB_ENDPOINT)));
    const ids = Array.from({ length: 8 }, (_, i) => `${prefix}-own-${i}`);
    const answers = await Promise.all(ids.map((id, i) => hot.send(add(id, i + 1))));
    expect(answers.map((a) => [a.Attributes?.customerId?.S, a.Attributes?.n?.N])).toEqual(ids.map((id, i) => [id, String(i + 1)]));
    const again = await hot.send(new GetItemCommand({ TableName: TABLE, Key: { customerId: { S: ids[3] ?? '' } }, ConsistentRead: true }));
    expect(again.Item?.n?.N).toBe('4');
  });

  it('refuses a document client whose client createDynamoClient did not build', () => {
    expect(() => hotClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })))).toThrow(/createDynamoClient/);
  });
});
