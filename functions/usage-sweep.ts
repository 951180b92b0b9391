/**
 * The usage sweep, run every hour by an EventBridge schedule (and by `npm start`'s timer): moves the finished days
 * of the counter items to the usage history (lib/usage/day-sweep.ts) within the invocation's time, less a reserve.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { nowMs } from '../lib/clock.js';
import { config, tableName } from '../lib/config.js';
import { documentClient } from '../lib/dynamo/client.js';
import { FUNCTION_SETTINGS } from '../lib/function-settings.js';
import { log, logContext } from '../lib/log.js';
import { ownerOfKey } from '../lib/rate-limit/shards.js';
import { daySweep, type SweepRun } from '../lib/usage/day-sweep.js';

const sweep = daySweep(documentClient(), tableName('COUNTERS_TABLE'), {
  ownerOf: ownerOfKey,
  retentionDays: config().USAGE_RETENTION_DAYS,
});

export const handler = middy<unknown, SweepRun, Error, Context>()
  .use(logContext())
  .handler(async (_event, context) => {
    const deadline = Date.now() + context.getRemainingTimeInMillis() - FUNCTION_SETTINGS.usageSweepReserveSeconds * 1000;
    const run = await sweep.run(nowMs(), deadline);
    // A pass that ends with days it could not move leaves them for the next pass; readers count them where they are.
    if (run.left > 0) log.warn('usage sweep: some finished days were left on their counter items', { ...run });
    else log.info('usage sweep', { ...run });
    return run;
  });
