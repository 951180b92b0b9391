/**
 * The usage sweep: moves finished days from the counter items to the history (day-move.ts), off the request path,
 * scanning a page at a time within a time budget and keeping where it stopped in its own item for the next run.
 */
import { type DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type DayCount, finishedDays, USAGE_RETENTION_DEFAULT_DAYS } from './day-counts.js';
import { DAYS_PER_MOVE, recordDays } from './day-move.js';
import { dateOf, dayStartOf } from './days.js';

/** The sweep's own item in the counters table. Customer ids never hold a "#", so no counter item has this key. */
export const SWEEP_STATE_KEY = 'sweep#usage';

export interface DaySweepOptions {
  /** The customer a counter item's key belongs to; undefined for any other item (lib/rate-limit/shards.ts). */
  ownerOf: (key: string) => string | undefined;
  /** Days a day's totals are kept (USAGE_RETENTION_DAYS): the history item's TTL. */
  retentionDays?: number;
  /** Items one Scan page reads at most: the work between two checks of the budget. */
  pageSize?: number;
  parallel?: number;
  /** The wall clock the budget is read on (Unix milliseconds). @default Date.now */
  wallClock?: () => number;
}

export interface SweepRun {
  /** The UTC day (YYYY-MM-DD) the pass began: days before the day before it are moved. */
  pass: string;
  /** Whether the pass reached the end of the table; if not, the next run goes on where this one stopped. */
  finished: boolean;
  pages: number;
  /** Items read, of every kind, and day counts moved to the history. */
  items: number;
  moved: number;
  /** Counter items whose finished days this run could not move (each move lost three times, or time ran out). */
  left: number;
  readUnits: number;
}

/** A move lost to a concurrent write is tried again on the item read anew, this many times per item. */
const ATTEMPTS = 3;
/** A move (and a read) ends after this long; it was applied whole or not at all, and the item is left for later. */
const CALL_TIMEOUT_MS = 5_000;
const TIMED_OUT = Symbol('timed out');
/** `call` given a signal that ends it after CALL_TIMEOUT_MS: its result, or TIMED_OUT. */
const inTime = <T>(call: (signal: AbortSignal) => Promise<T>): Promise<T | typeof TIMED_OUT> =>
  call(AbortSignal.timeout(CALL_TIMEOUT_MS)).catch((error: unknown) => {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return TIMED_OUT;
    throw error;
  });

interface SweepState {
  /** The start of the UTC day the pass began (Unix seconds). */
  passDay: number;
  /** The key of the last item of the last page done; absent once the pass reached the end of the table. */
  after?: string;
}

export function daySweep(db: DynamoDBDocumentClient, table: string, options: DaySweepOptions) {
  const retentionDays = options.retentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;
  const pageSize = options.pageSize ?? 100;
  const parallel = options.parallel ?? 8;
  const wallClock = options.wallClock ?? Date.now;

  async function readState(): Promise<SweepState | undefined> {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId: SWEEP_STATE_KEY }, ConsistentRead: true }));
    return Item && typeof Item.passDay === 'number'
      ? { passDay: Item.passDay, after: typeof Item.after === 'string' ? Item.after : undefined }
      : undefined;
  }

  async function saveState(state: SweepState): Promise<void> {
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { customerId: SWEEP_STATE_KEY },
        UpdateExpression: state.after === undefined ? 'SET passDay = :day REMOVE #after' : 'SET passDay = :day, #after = :after',
        ExpressionAttributeNames: { '#after': 'after' },
        ExpressionAttributeValues: { ':day': state.passDay, ...(state.after === undefined ? {} : { ':after': state.after }) },
      }),
    );
  }

  /** Moves the finished days of one scanned item, `DAYS_PER_MOVE` at a time; a move that loses reads the item anew. */
  async function sweepItem(scanned: Record<string, unknown>, today: number, deadline: number): Promise<{ moved: number; left: boolean }> {
    const key = scanned.customerId;
    const owner = typeof key === 'string' ? options.ownerOf(key) : undefined;
    if (typeof key !== 'string' || owner === undefined) return { moved: 0, left: false };
    let item: Record<string, unknown> | undefined = scanned;
    let moved = 0;
    for (let lost = 0; lost < ATTEMPTS; ) {
      const days: DayCount[] = finishedDays(item, today).slice(0, DAYS_PER_MOVE);
      if (!days.length) return { moved, left: false };
      if (wallClock() >= deadline) return { moved, left: true };
      const recorded = await inTime((signal) => recordDays(db, table, owner, key, days, retentionDays, signal));
      if (recorded === TIMED_OUT) return { moved, left: true };
      if (recorded) {
        moved += days.length;
        const rest: Record<string, unknown> = { ...item };
        for (const count of days) delete rest[count.name];
        item = rest;
        continue;
      }
      lost++;
      const read = await inTime((abortSignal) =>
        db.send(new GetCommand({ TableName: table, Key: { customerId: key }, ConsistentRead: true }), { abortSignal }),
      );
      if (read === TIMED_OUT) return { moved, left: true };
      item = read.Item;
    }
    return { moved, left: finishedDays(item, today).length > 0 };
  }

  return {
    /**
     * One run, begun at `nowMs`, that starts no new work after `deadlineMs` (the caller leaves room for the calls under
     * way: a move and a read of CALL_TIMEOUT_MS each, a Scan, a state write). A pass begins with a UTC day's first run;
     * the position passes a page only once all its items are done, so a page cut short is read again next run.
     */
    async run(nowMs: number, deadlineMs: number): Promise<SweepRun> {
      const today = dayStartOf(Math.floor(nowMs / 1000));
      const state = await readState();
      const continuing = state?.after !== undefined;
      const passDay = continuing && state ? state.passDay : today;
      const result: SweepRun = { pass: dateOf(passDay), finished: false, pages: 0, items: 0, moved: 0, left: 0, readUnits: 0 };
      if (!continuing && state?.passDay === today) return { ...result, finished: true };
      let after = state?.after;
      while (wallClock() < deadlineMs) {
        const page = await db.send(
          new ScanCommand({
            TableName: table,
            Limit: pageSize,
            ExclusiveStartKey: after === undefined ? undefined : { customerId: after },
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        result.pages++;
        result.readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
        const items = page.Items ?? [];
        result.items += items.length;
        let next = 0;
        let cut = false;
        const worker = async () => {
          while (next < items.length) {
            const item = items[next++] ?? {};
            const done = await sweepItem(item, today, deadlineMs);
            result.moved += done.moved;
            if (done.left) result.left++;
            if (done.left && wallClock() >= deadlineMs) cut = true;
          }
        };
        await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
        if (cut) break;
        const last = page.LastEvaluatedKey?.customerId;
        after = typeof last === 'string' ? last : undefined;
        await saveState({ passDay, after });
        if (after === undefined) {
          result.finished = true;
          break;
        }
      }
      return result;
    },
  };
}
