/**
 * `npm start` runs the usage sweep as AWS does: the same handler, at start and every hour at the schedule's minute
 * (infra/local/sweep-timer.ts); the gateway process of each environment (serve.ts) runs it on its own tables.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextRunAt, startSweepTimer } from '../../infra/local/sweep-timer.js';
import { testDb } from '../support/customers.js';
import { runPort } from '../support/ports.js';

describe('the local sweep schedule', () => {
  it('is every hour at minute 10, UTC, as the EventBridge rule', () => {
    expect(new Date(nextRunAt(Date.UTC(2036, 2, 20, 12, 5))).toISOString()).toBe('2036-03-20T12:10:00.000Z');
    expect(new Date(nextRunAt(Date.UTC(2036, 2, 20, 12, 10))).toISOString()).toBe('2036-03-20T13:10:00.000Z');
    expect(new Date(nextRunAt(Date.UTC(2036, 2, 20, 23, 59, 59))).toISOString()).toBe('2036-03-21T00:10:00.000Z');
  });

  describe('the timer', () => {
    afterEach(() => vi.useRealTimers());

    it('runs at start, then at each scheduled time, one run at a time; a failed run does not stop it', async () => {
      vi.useFakeTimers({ now: Date.UTC(2036, 2, 20, 23, 30) });
      const runs: string[] = [];
      const timer = startSweepTimer(async () => {
        runs.push(new Date().toISOString());
        if (runs.length === 2) throw new Error('DynamoDB is down');
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(runs).toEqual(['2036-03-20T23:30:00.000Z']);
      await vi.advanceTimersByTimeAsync(40 * 60_000 - 1);
      expect(runs).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(runs).toEqual(['2036-03-20T23:30:00.000Z', '2036-03-21T00:10:00.000Z']);
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(runs.at(-1)).toBe('2036-03-21T01:10:00.000Z');
      timer.stop();
      await vi.advanceTimersByTimeAsync(3 * 3_600_000);
      expect(runs).toHaveLength(3);
    });
  });
});

describe("an environment's local gateway process (serve.ts, as npm start runs it)", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGTERM');
  });

  it('moves a finished day of its counters table to the usage history when it starts', async () => {
    const table = process.env.COUNTERS_TABLE ?? '';
    const today = Math.floor(Date.now() / 86_400_000) * 86_400;
    const finished = today - 3 * 86_400;
    await testDb.send(
      new PutCommand({ TableName: table, Item: { customerId: 'local-sweep', [`d${finished}`]: 4, expiresAt: today + 400 * 86_400 } }),
    );
    child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/serve.ts'], {
      env: { ...process.env, PORT: String(await runPort()), GATEWAY_THROTTLES: 'off', LOG_LEVEL: 'WARN' },
      stdio: 'ignore',
    });
    const month = new Date(finished * 1000).toISOString().slice(0, 7);
    const day = new Date(finished * 1000).toISOString().slice(8, 10);
    await vi.waitFor(
      async () => {
        const { Item } = await testDb.send(
          new GetCommand({ TableName: table, Key: { customerId: `usage#local-sweep#${month}` }, ConsistentRead: true }),
        );
        expect(Item?.[`a${day}`]).toBe(4);
      },
      { timeout: 60_000, interval: 500 },
    );
    const { Item } = await testDb.send(new GetCommand({ TableName: table, Key: { customerId: 'local-sweep' }, ConsistentRead: true }));
    expect(Item?.[`d${finished}`]).toBeUndefined();
  }, 90_000);
});
