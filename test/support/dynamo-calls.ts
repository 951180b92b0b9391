/**
 * Counts the DynamoDB calls a process makes, through a middleware on its client (below the retries, so once per attempt
 * that reaches the wire): which command, on which item, and whether it failed.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

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

export function recordCalls(client: DynamoDBClient, name = 'testCallRecorder') {
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
