/**
 * Counts the DynamoDB work of each request: calls, sequential round trips, capacity units and time spent waiting,
 * through a middleware on the process's one DynamoDB client. Asks for ReturnConsumedCapacity on every call.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';

export interface Call {
  command: string;
  start: number;
  end: number;
  read: number;
  write: number;
}

/** What an answer says it consumed: one table's capacity, or a list of them (transactions, batches). */
const CapacitySchema = v.looseObject({ CapacityUnits: v.optional(v.number()) });
const ConsumedSchema = v.looseObject({ ConsumedCapacity: v.optional(v.union([CapacitySchema, v.array(CapacitySchema)])) });

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

let meters = 0;

/** A call as the middleware saw it; its capacity is read by `take`, after the request, not on its path. */
interface Seen {
  command: string;
  start: number;
  end: number;
  input: object;
  output?: unknown;
}

function callOf({ command, start, end, input, output }: Seen): Call {
  const write = WRITES.has(command);
  // A failed conditional write still consumes write capacity; DynamoDB reports it only on success.
  if (output === undefined) return { command, start, end, read: 0, write: write ? 1 : 0 };
  const consumed = v.parse(ConsumedSchema, output).ConsumedCapacity;
  let units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  // DynamoDB Local under-reports transactions; AWS bills 2 write units per item of up to 1 KB.
  const items = 'TransactItems' in input && Array.isArray(input.TransactItems) ? input.TransactItems.length : 0;
  if (command === 'TransactWriteItemsCommand' && items) units = Math.max(units, 2 * items);
  return { command, start, end, read: write ? 0 : units, write: write ? units : 0 };
}

export class DynamoMeter {
  private seen: Seen[] = [];
  /** Several meters may watch one client (each section of the bench its own). */
  private readonly name = `benchDynamoMeter${meters++}`;

  /**
   * Between a call's end and the request's going on, the middleware only notes the time: whatever it did there
   * would count as the request's own work in the warm overhead (it once parsed each answer there, 20 to 90 µs).
   */
  attach(client: Pick<DynamoDBClient, 'middlewareStack'>): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input: object = args.input;
        if (!('ReturnConsumedCapacity' in input) || input.ReturnConsumedCapacity === undefined) {
          Object.assign(input, { ReturnConsumedCapacity: 'TOTAL' });
        }
        const command = String(context.commandName);
        const start = performance.now();
        try {
          const result = await next(args);
          this.seen.push({ command, start, end: performance.now(), input, output: result.output });
          return result;
        } catch (error) {
          this.seen.push({ command, start, end: performance.now(), input });
          throw error;
        }
      },
      { step: 'initialize', name: this.name },
    );
  }

  take(): Call[] {
    const calls = this.seen.map(callOf);
    this.seen = [];
    return calls;
  }
}

/** The longest chain of calls each starting after the previous ended: the round trips a request waits for. */
export function sequentialRoundTrips(calls: Call[]): number {
  const sorted = [...calls].sort((a, b) => a.end - b.end);
  const longest: number[] = [];
  for (const [i, call] of sorted.entries()) {
    let best = 1;
    for (const [j, earlier] of sorted.slice(0, i).entries()) {
      if (earlier.end <= call.start) best = Math.max(best, (longest[j] ?? 0) + 1);
    }
    longest.push(best);
  }
  return Math.max(0, ...longest);
}

/** Milliseconds during which at least one call was in flight. */
export function waitingMs(calls: Call[]): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let total = 0;
  let [from, to] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const call of sorted) {
    if (call.start > to) {
      if (to > from) total += to - from;
      [from, to] = [call.start, call.end];
    } else to = Math.max(to, call.end);
  }
  if (to > from) total += to - from;
  return total;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.at(Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)) ?? Number.NaN;
}
