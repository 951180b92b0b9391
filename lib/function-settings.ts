/**
 * The runtime settings of every Lambda function, defined once: the stack deploys them, the local gateway models them,
 * and the DynamoDB client's time budget is checked against them.
 */
export const FUNCTION_SETTINGS = {
  /** Enough CPU to load the bundled SDK quickly on a cold start, at a modest price per ms. */
  memoryMb: 512,
  /** An operation's function: below API Gateway's 29 s integration limit. */
  operationTimeoutSeconds: 15,
  /** The authorizer: every uncached request waits for it. */
  authorizerTimeoutSeconds: 10,
} as const;
