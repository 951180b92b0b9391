/**
 * A cold createCategory through its real chain: the new instance's read of the id counter runs while the request
 * waits for admission, so the create costs two sequential round trips, as a warm one does; and the idempotency
 * utility is not loaded until a request carries an Idempotency-Key. Its own file, so that the handler module (and
 * its store) is new here.
 */
import { describe, expect, it, vi } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { invoke, jsonPost } from '../support/events.js';

const utility = vi.hoisted(() => ({ loads: 0 }));
vi.mock('../../lib/idempotency/utility.mjs', async (original) => {
  utility.loads++;
  return original();
});

interface Call {
  command: string;
  table: unknown;
  start: number;
  end: number;
}

describe('createCategory on a new instance', () => {
  it('reads the counter during admission: UpdateItem and GetItem overlap, then one transaction', async () => {
    const calls: Call[] = [];
    documentClient().middlewareStack.add(
      (next, context) => async (args) => {
        const start = performance.now();
        try {
          return await next(args);
        } finally {
          const table = 'TableName' in args.input ? args.input.TableName : undefined;
          calls.push({ command: context.commandName ?? '?', table, start, end: performance.now() });
        }
      },
      { step: 'initialize', name: 'timeCalls' },
    );
    const answer = await invoke(create, jsonPost(JSON.stringify({ name: `Cold ${Date.now()}` })));
    expect(answer.status).toBe(201);
    expect(utility.loads, 'the idempotency utility, loaded by a request without a key').toBe(0);
    const byCommand = Object.fromEntries(calls.map((c) => [c.command, c]));
    expect(calls.map((c) => c.command).sort()).toEqual(['GetItemCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand']);
    const [admission, read, transaction] = [byCommand.UpdateItemCommand, byCommand.GetItemCommand, byCommand.TransactWriteItemsCommand];
    expect(admission?.table).toBe(process.env.COUNTERS_TABLE);
    expect(read?.table).toBe(process.env.CATEGORIES_TABLE);
    // The read started before the admission's write came back, and the transaction waited for both.
    expect(read?.start).toBeLessThan(admission?.end ?? 0);
    expect(transaction?.start).toBeGreaterThanOrEqual(Math.max(admission?.end ?? Infinity, read?.end ?? Infinity));
  });

  it('loads the idempotency utility with the first request that carries an Idempotency-Key, once', async () => {
    expect(utility.loads).toBe(0);
    const keyed = () =>
      jsonPost(JSON.stringify({ name: 'Cold keyed' }), { 'Content-Type': 'application/json', 'Idempotency-Key': 'cold-key' });
    const first = await invoke(create, keyed());
    expect(first.status).toBe(201);
    expect(utility.loads).toBe(1);
    const replay = await invoke(create, keyed());
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(utility.loads).toBe(1);
  });
});
