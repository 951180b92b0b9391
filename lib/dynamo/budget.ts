/**
 * The DynamoDB client's time budget per kind of function: attempts, connection and request timeouts, longest wait
 * between attempts. A DynamoDB that never answers must make the function give up well inside its Lambda timeout,
 * so that the client gets the contract's 503 with Retry-After rather than API Gateway's 5xx.
 */
import { FUNCTION_SETTINGS } from '../function-settings.js';

export interface DynamoBudget {
  /** Attempts per DynamoDB call, the first included. */
  readonly attempts: number;
  /** From the start of an attempt until the TCP connection is up (DNS included). */
  readonly connectionTimeoutMs: number;
  /** From the start of an attempt until DynamoDB's answer arrives. */
  readonly requestTimeoutMs: number;
  /** The longest wait before a retry (budgetRetryStrategy, backoff.ts, caps the SDK's backoff with it). */
  readonly maxBackoffMs: number;
}

export type FunctionKind = 'operation' | 'authorizer';

/** The share of a function's Lambda timeout its DynamoDB calls may use at worst; the rest is for everything else. */
export const BUDGET_SHARE_OF_TIMEOUT = 0.7;

/**
 * As deployed: an in-region call takes milliseconds, so the timeouts only decide how soon a lost attempt is
 * abandoned. Every uncached request waits for the authorizer, whose GetItems are our cheapest calls: shorter.
 */
export const DYNAMO_BUDGETS: Readonly<Record<FunctionKind, DynamoBudget>> = {
  operation: { attempts: 3, connectionTimeoutMs: 500, requestTimeoutMs: 2_000, maxBackoffMs: 500 },
  authorizer: { attempts: 3, connectionTimeoutMs: 500, requestTimeoutMs: 1_000, maxBackoffMs: 500 },
};

/** The Lambda timeout each kind of function is deployed with (lib/function-settings.ts). */
export const LAMBDA_TIMEOUT_MS: Readonly<Record<FunctionKind, number>> = {
  operation: FUNCTION_SETTINGS.operationTimeoutSeconds * 1000,
  authorizer: FUNCTION_SETTINGS.authorizerTimeoutSeconds * 1000,
};

/** Every retry waits at most maxBackoffMs (full jitter below that), and there are attempts − 1 retries. */
export function maxTotalBackoffMs(budget: DynamoBudget): number {
  return (budget.attempts - 1) * budget.maxBackoffMs;
}

/**
 * @internal The longest one DynamoDB call can take before the client gives up: every attempt counted as connection
 * plus request timeout, which over-counts (@smithy/node-http-handler's request timer includes the connection).
 */
export function worstCaseWaitMs(budget: DynamoBudget): number {
  return budget.attempts * (budget.connectionTimeoutMs + budget.requestTimeoutMs) + maxTotalBackoffMs(budget);
}

/** @internal What the worst case may be for a kind of function: BUDGET_SHARE_OF_TIMEOUT of its Lambda timeout. */
export function allowedWaitMs(kind: FunctionKind): number {
  return LAMBDA_TIMEOUT_MS[kind] * BUDGET_SHARE_OF_TIMEOUT;
}

/**
 * DynamoDB Local: the same attempts and backoff, longer timeouts. The local gateway queues many requests per
 * process (the connection timer runs while one waits for a socket), and a JVM on a shared machine answers slowly;
 * it refuses at once when down, so waiting longer costs nothing there.
 */
export const LOCAL_TIMEOUTS = { connectionTimeoutMs: 10_000, requestTimeoutMs: 5_000 } as const;

export function localBudget(budget: DynamoBudget): DynamoBudget {
  return { ...budget, ...LOCAL_TIMEOUTS };
}
