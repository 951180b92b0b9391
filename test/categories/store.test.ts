/**
 * The category store's DynamoDB calls, counted on a client of its own against DynamoDB Local: what a new instance
 * (a cold Lambda) and a warm one send to create a category.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { categoryStore } from '../../lib/categories/store.js';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { testTable } from '../support/environment.js';

const table = testTable('CATEGORIES_TABLE');

/** A store over a client that records the name and outcome of every command it sends. */
function countedStore(failFirst?: string) {
  const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
  const calls: string[] = [];
  let toFail = failFirst;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        if (context.commandName === toFail) {
          toFail = undefined;
          throw Object.assign(new Error('injected'), { name: 'InjectedFailure' });
        }
        const out = await next(args);
        calls.push(context.commandName ?? '?');
        return out;
      } catch (error) {
        calls.push(`${context.commandName} failed: ${error instanceof Error ? error.name : String(error)}`);
        throw error;
      }
    },
    { step: 'initialize', name: 'countCalls' },
  );
  return { store: categoryStore(createDocumentClient(client), table), calls };
}

const name = () => `Store ${randomUUID().slice(0, 8)}`;
const CREATOR = `store-test-${randomUUID().slice(0, 8)}`;

describe('category store: calls per create', () => {
  it('a new instance reads the counter once instead of failing a transaction to learn it; a warm one sends one transaction', async () => {
    const earlier = countedStore();
    await earlier.store.create({ name: name() }, CREATOR);
    await earlier.store.create({ name: name() }, CREATOR);

    const cold = countedStore();
    const first = await cold.store.create({ name: name() }, CREATOR);
    expect(cold.calls).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
    const second = await cold.store.create({ name: name() }, CREATOR);
    expect(second.id).toBe(first.id + 1);
    expect(cold.calls).toEqual(['GetItemCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  });

  it('a guess made stale by another instance costs one failed transaction, and the id stays gapless', async () => {
    const a = countedStore();
    const b = countedStore();
    const fromA = await a.store.create({ name: name() }, CREATOR);
    const fromB = await b.store.create({ name: name() }, CREATOR);
    expect(fromB.id).toBe(fromA.id + 1);
    a.calls.length = 0;
    const again = await a.store.create({ name: name() }, CREATOR);
    expect(again.id).toBe(fromB.id + 1);
    expect(a.calls).toEqual(['TransactWriteItemsCommand failed: TransactionCanceledException', 'TransactWriteItemsCommand']);
  });
});

describe('category store: prepare', () => {
  it('prepare and a create that follows share one read of the counter', async () => {
    const cold = countedStore();
    cold.store.prepare();
    await cold.store.create({ name: name() }, CREATOR);
    cold.store.prepare(); // the counter is known now: nothing to read
    await cold.store.create({ name: name() }, CREATOR);
    expect(cold.calls).toEqual(['GetItemCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  });

  it('a read that failed before the create began is made again by the create', async () => {
    const earlier = countedStore();
    const before = await earlier.store.create({ name: name() }, CREATOR);
    const cold = countedStore('GetItemCommand');
    cold.store.prepare();
    await vi.waitFor(() => expect(cold.calls).toEqual(['GetItemCommand failed: InjectedFailure']));
    // The failure has yet to pass up through the SDK's promises to the store: let them settle first.
    await new Promise((resolve) => setImmediate(resolve));
    const created = await cold.store.create({ name: name() }, CREATOR);
    expect(created.id).toBe(before.id + 1);
    expect(cold.calls).toEqual(['GetItemCommand failed: InjectedFailure', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });
});
