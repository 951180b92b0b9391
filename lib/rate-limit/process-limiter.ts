/**
 * The rate limiter of this process (a Lambda instance, or the local gateway serving every operation): built once on
 * first use and shared by every operation's chain, so what one operation learned about a refused customer spares
 * the others their DynamoDB calls too. From the outside in: the memory of refusals and bans (refusal-cache.ts), the
 * memory of GET /rate-limit's reads (status-memory.ts), the counts on DynamoDB (dynamo-limiter.ts).
 */
import { config, tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import { log } from '../log.js';
import { dynamoRateLimiter } from './dynamo-limiter.js';
import type { RateLimiter } from './limiter.js';
import { refusalCache } from './refusal-cache.js';
import { statusMemory } from './status-memory.js';

let limiter: RateLimiter | undefined;

export function processRateLimiter(): RateLimiter {
  limiter ??= refusalCache(
    statusMemory(
      dynamoRateLimiter(documentClient(), tableName('COUNTERS_TABLE'), {
        banSeconds: config().BAN_SECONDS,
        usageRetentionDays: config().USAGE_RETENTION_DAYS,
      }),
    ),
    {
      // Only the timer's write of leftover refusals gets here; they stay pending for the next request's write.
      onBackgroundError: (error) => log.warn('refusals not yet counted toward the ban: the write failed', { error }),
    },
  );
  return limiter;
}
