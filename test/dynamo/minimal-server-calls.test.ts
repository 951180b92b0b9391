/**
 * The bench's load goal compares the local gateway with a minimal server making the same DynamoDB calls
 * (test/bench/minimal-calls.ts): for an admitted GET /categories, the requests it sends are the request path's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { listCategoriesBare } from '../bench/minimal-calls.js';
import { newInstance } from '../support/dynamo-calls.js';
import { invoke, proxyEvent, TEST_AUTHORIZER } from '../support/events.js';

/** Every request sent through a client's stack, as the SDK serializes it (low-level input). */
function sentThrough(client: Pick<DynamoDBClient, 'middlewareStack'>): { command: string; input: unknown }[] {
  const sent: { command: string; input: unknown }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: context.commandName ?? '', input: args.input });
      return next(args);
    },
    { step: 'deserialize', name: 'sameCallsRecorder' },
  );
  return sent;
}

/** In command order, the customer's id made alike; everything else (window names, now, the TTL) compared as sent. */
const alike = (sent: { command: string; input: unknown }[], customerId: string): unknown =>
  JSON.parse(JSON.stringify([...sent].sort((a, b) => a.command.localeCompare(b.command))).replaceAll(customerId, '<customer>'));

describe('the minimal server of the end-to-end bench', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the request path’s UpdateItem and Query for an admitted listCategories, and nothing else', async () => {
    // One instant for both, so that the window names, now and the TTL are compared as they are sent.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now());
    const instance = await newInstance(async () => ({
      ...(await import('../../functions/list-categories.js')),
      clients: await import('../../lib/dynamo/client.js'),
    }));
    const product = sentThrough(instance.clients.documentClient());
    expect((await invoke(instance.handler, proxyEvent())).status).toBe(200);

    const db = createDocumentClient(createDynamoClient(process.env.DYNAMODB_ENDPOINT));
    const minimal = sentThrough(db);
    const customer = { customerId: `${TEST_AUTHORIZER.customerId}-bare`, perMinute: 20_000, perDay: 1_000_000_000 };
    expect((await listCategoriesBare(db, customer)).status).toBe(200);

    expect(product.map((call) => call.command).sort()).toEqual(['QueryCommand', 'UpdateItemCommand']);
    expect(alike(minimal, customer.customerId)).toEqual(alike(product, TEST_AUTHORIZER.customerId));
  });
});
