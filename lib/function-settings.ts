/** The runtime settings of every Lambda function: the stack deploys them, the local gateway models them. */
export const FUNCTION_SETTINGS = {
  /** Enough CPU to load the bundled SDK quickly on a cold start, at a modest price per ms. */
  memoryMb: 512,
  /** An operation's function: below API Gateway's 29 s integration limit. */
  operationTimeoutSeconds: 15,
  /** The authorizer: every uncached request waits for it. */
  authorizerTimeoutSeconds: 10,
  /** The usage sweep (functions/usage-sweep.ts) runs every hour at this minute, UTC. */
  usageSweepMinute: 10,
  /** The usage sweep's timeout; it starts no new work in the last usageSweepReserveSeconds of it. */
  usageSweepTimeoutSeconds: 300,
  usageSweepReserveSeconds: 30,
} as const;
