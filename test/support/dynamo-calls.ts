/**
 * Counts DynamoDB calls, through a middleware on a client (below the retries, so once per attempt that reaches the
 * wire): which command, on which item, and whether it failed. What a test counts goes through a client of its own,
 * never one that earlier tests (or the code under test, in the background) also use: a refusal batch written by a
 * timer, or a day being moved, would otherwise be counted as the test's.
 * - `recordedClient()`: a new client for a store or limiter the test builds itself.
 * - `newInstance()`: a new Lambda instance for a test that calls a handler: the product's modules imported afresh,
 *   so its process-wide clients (lib/dynamo/client.ts), rate limiter and stores are its own.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { vi } from 'vitest';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { quietFreshLogs } from './logs.js';

export interface RecordedCall {
  command: string;
  /** The item's key (customerId), for single-item commands. */
  key: string | undefined;
  failed: boolean;
  /** The error's name when it failed (ConditionalCheckFailedException, …). */
  error: string | undefined;
  /** An UpdateItem's update expression. */
  update: string | undefined;
}

/** A write that adds refusals toward the ban (ban.ts), rather than a request's count. */
export const isRefusalCount = (call: RecordedCall) => call.update?.startsWith('ADD #r') ?? false;

function keyOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || !('Key' in input)) return undefined;
  const key = input.Key;
  if (typeof key !== 'object' || key === null || !('customerId' in key)) return undefined;
  const id = key.customerId;
  if (typeof id === 'string') return id;
  return typeof id === 'object' && id !== null && 'S' in id && typeof id.S === 'string' ? id.S : undefined;
}

export function recordCalls(client: Pick<DynamoDBClient, 'middlewareStack'>, name = 'testCallRecorder') {
  const calls: RecordedCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input: unknown = args.input;
      const update =
        typeof input === 'object' && input !== null && 'UpdateExpression' in input && typeof input.UpdateExpression === 'string'
          ? input.UpdateExpression
          : undefined;
      const call: RecordedCall = { command: context.commandName ?? '', key: keyOf(input), failed: false, error: undefined, update };
      calls.push(call);
      try {
        return await next(args);
      } catch (error) {
        call.failed = true;
        call.error = error instanceof Error ? error.name : String(error);
        throw error;
      }
    },
    { step: 'deserialize', priority: 'high', name },
  );
  return {
    calls,
    /** The calls recorded so far, forgotten for the next `take`. */
    take(): RecordedCall[] {
      return calls.splice(0, calls.length);
    },
    writes(list: RecordedCall[]) {
      return list.filter((c) => ['UpdateItemCommand', 'PutItemCommand', 'DeleteItemCommand'].includes(c.command));
    },
    detach() {
      client.middlewareStack.remove(name);
    },
  };
}

export type CallRecorder = ReturnType<typeof recordCalls>;

/** A DynamoDB client of the test's own (and its document client), every call on it recorded. */
export function recordedClient(name?: string) {
  const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
  return { client, db: createDocumentClient(client), recorder: recordCalls(client, name) };
}

/**
 * A new Lambda instance in this test process. The module registry is reset, then `load` imports what the test
 * calls (a handler, and any setting it needs first) into the new instance; the instance reads `clock` and its two
 * process-wide clients are recorded: `calls` the operations', `authorizerCalls` the authorizer's. Modules the test
 * file imported statically stay the earlier instance's, but a module they import lazily from then on (the local
 * gateway's handlers) comes from the reset registry: a file that makes instances calls every handler through one.
 * The new instance's logger writes to the test sink (logs.ts), as the file's own does.
 */
export async function newInstance<T>(load: () => Promise<T>, clock?: () => number) {
  vi.resetModules();
  quietFreshLogs((await import('../../lib/log.js')).setLogSink);
  const { setClock } = await import('../../lib/clock.js');
  const { authorizerDocumentClient, documentClient } = await import('../../lib/dynamo/client.js');
  if (clock) setClock(clock);
  const loaded = await load();
  return { ...loaded, calls: recordCalls(documentClient()), authorizerCalls: recordCalls(authorizerDocumentClient()) };
}
