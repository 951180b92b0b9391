/**
 * getItems against DynamoDB Local, which never leaves keys unprocessed: a test-only middleware on a client of this
 * file does what DynamoDB does under load, answering part of a BatchGetItem and returning the rest of the keys as
 * UnprocessedKeys.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getItems } from '../../lib/dynamo/batch-get.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';

const TABLE = process.env.COUNTERS_TABLE ?? '';
const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
const db = DynamoDBDocumentClient.from(client);
const prefix = `batch-get-${Date.now().toString(36)}`;
const keys = Array.from({ length: 6 }, (_, i) => ({ customerId: `${prefix}-${i}` }));

/** How many of the next answers withhold all but one item; the calls seen. */
let withholding = 0;
let calls = 0;

beforeAll(async () => {
  for (const key of keys.slice(0, 5)) await db.send(new PutCommand({ TableName: TABLE, Item: { ...key, n: 1 } }));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'BatchGetItemCommand') return result;
      calls++;
      if (withholding <= 0) return result;
      withholding--;
      // Outermost in its step, so it sees what the document client gives back (plain values), but the request as
      // sent (attribute values).
      const output = result.output as { Responses?: Record<string, Record<string, unknown>[]>; UnprocessedKeys?: unknown };
      const sent =
        (args.input as { RequestItems: Record<string, { Keys: Record<string, AttributeValue>[] }> }).RequestItems[TABLE]?.Keys ?? [];
      // Answer the first item found; every other key asked for comes back unprocessed, found or not.
      const [first] = output.Responses?.[TABLE] ?? [];
      output.Responses = { [TABLE]: first ? [first] : [] };
      const left = sent.map((key) => ({ customerId: key.customerId?.S })).filter((key) => key.customerId !== first?.customerId);
      output.UnprocessedKeys = left.length ? { [TABLE]: { Keys: left, ConsistentRead: true } } : {};
      return result;
    },
    { step: 'deserialize', priority: 'high', name: 'withholdBatchGet' },
  );
});

describe('getItems', () => {
  // A failed test leaves no withholding behind for the next.
  afterEach(() => {
    withholding = 0;
  });

  it('asks again for the keys a BatchGetItem left unprocessed, and returns every item found', async () => {
    withholding = 2;
    calls = 0;
    const found = await getItems(db, TABLE, keys);
    expect(calls).toBe(3);
    expect(found.map((item) => item.customerId).sort()).toEqual(keys.slice(0, 5).map((key) => key.customerId));
  });

  it('refuses more keys than one BatchGetItem takes, before asking DynamoDB', async () => {
    calls = 0;
    const many = Array.from({ length: 101 }, (_, i) => ({ customerId: `${prefix}-many-${i}` }));
    await expect(getItems(db, TABLE, many)).rejects.toThrow(/101 keys asked for at once; BatchGetItem takes 100/);
    expect(calls).toBe(0);
  });

  // Each answer gives one item: after five, the key without an item is still unprocessed.
  it('fails, rather than answer with part of the items, when keys stay unprocessed', async () => {
    withholding = 100;
    calls = 0;
    await expect(getItems(db, TABLE, keys)).rejects.toThrow(/1 of 6 items stayed unprocessed after 5 attempts/);
    expect(calls).toBe(5);
  });
});
