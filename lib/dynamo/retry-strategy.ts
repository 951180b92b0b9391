/**
 * The SDK's standard retry strategy (which errors are retried, its retry quota that stops retrying during an
 * outage) with every wait between attempts bounded by the budget's maxBackoffMs.
 */
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { RetryErrorInfo, StandardRetryBackoffStrategy, StandardRetryToken } from '@smithy/types';
import { fullJitter } from './backoff.js';
import type { DynamoBudget } from './budget.js';

/** Full jitter below min(base × 2^retries, cap): the SDK's own formula (backoff.ts), with our cap instead of 20 s. */
class CappedBackoff implements StandardRetryBackoffStrategy {
  private base = 0;

  constructor(private readonly capMs: number) {}

  setDelayBase(delayBase: number): void {
    this.base = delayBase;
  }

  computeNextBackoffDelay(retries: number): number {
    // The SDK counts the retries made so far (0 before the first); fullJitter counts the retry about to be made.
    return Math.floor(fullJitter({ baseMs: this.base, capMs: this.capMs }, retries + 1));
  }
}

class BudgetRetryStrategy extends StandardRetryStrategy {
  override async refreshRetryTokenForRetry(token: StandardRetryToken, errorInfo: RetryErrorInfo): Promise<StandardRetryToken> {
    const { retryAfterHint: _ignored, ...withoutHint } = errorInfo;
    return super.refreshRetryTokenForRetry(token, withoutHint);
  }
}

/**
 * Left alone, the SDK waits a random time below min(base × 2^retry, 20 s), with a base of 50 ms, or 1 s after a
 * throttling error; and when a response carries Retry-After or x-amz-retry-after it waits for that hint, up to
 * 5 s longer than its own backoff (@smithy/core, retry/util-retry/StandardRetryStrategy.js). Neither bound fits a
 * Lambda budget, so the backoff here is capped, and the hint (DynamoDB does not send one) is not followed.
 */
export function budgetRetryStrategy(budget: DynamoBudget): StandardRetryStrategy {
  return new BudgetRetryStrategy({ maxAttempts: budget.attempts, backoff: new CappedBackoff(budget.maxBackoffMs) });
}
