/**
 * `npm start`'s stand-in for the usage sweep's EventBridge schedule: runs functions/usage-sweep.ts's handler with its
 * deployed timeout, at start and every hour at the schedule's minute (UTC), one run at a time.
 */
import { randomUUID } from 'node:crypto';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { gatewayLog } from '../../lib/log.js';
import { lambdaContext } from './events.js';

const HOUR_MS = 3_600_000;

/** The first time after `nowMs` at which the schedule runs: minute `minute` of an hour, UTC. */
export function nextRunAt(nowMs: number, minute: number = FUNCTION_SETTINGS.usageSweepMinute): number {
  const atThisHour = nowMs - (nowMs % HOUR_MS) + minute * 60_000;
  return atThisHour > nowMs ? atThisHour : atThisHour + HOUR_MS;
}

/** Runs `run` now and at every scheduled time after, until stopped; a failed run is logged and the next one comes. */
export function startSweepTimer(run: () => Promise<unknown>): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const once = async () => {
    try {
      await run();
    } catch (error) {
      gatewayLog.warn('usage sweep failed; the next run goes on from where it stopped', { error });
    }
    if (!stopped) timer = setTimeout(once, nextRunAt(Date.now()) - Date.now()).unref();
  };
  void once();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export async function runUsageSweep(): Promise<unknown> {
  const { handler } = await import('../../functions/usage-sweep.js');
  const context = lambdaContext('usageSweep', randomUUID(), FUNCTION_SETTINGS.usageSweepTimeoutSeconds * 1000);
  return handler({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }, context);
}
