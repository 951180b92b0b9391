/**
 * AWS public on-demand prices, us-east-1, as published in 2026 (first pricing tier; free tiers ignored).
 * Sources: aws.amazon.com/api-gateway/pricing, /lambda/pricing, /dynamodb/pricing/on-demand.
 */
export const PRICES = {
  /** REST API requests, per million (first 333 million a month). */
  apiGatewayRestPerMillion: 3.5,
  /** Lambda requests, per million. */
  lambdaRequestsPerMillion: 0.2,
  /** Lambda duration on arm64, per GB-second (first 7.5 billion GB-s a month). */
  lambdaArmPerGbSecond: 0.0000133334,
  /** DynamoDB on-demand write request units, per million. */
  dynamoWritePerMillion: 0.625,
  /** DynamoDB on-demand read request units, per million. */
  dynamoReadPerMillion: 0.125,
} as const;

export interface CostInput {
  /** Billed Lambda duration per request, milliseconds (rounded up to 1 ms as Lambda bills). */
  durationMs: number;
  memoryMb: number;
  readUnits: number;
  writeUnits: number;
  /** Lambda invocations per request: 1 for the operation, plus the authorizer's share on a cache miss. */
  invocations: number;
  /** Extra billed Lambda GB-seconds per request (the authorizer's share). */
  extraGbSeconds?: number;
}

/** US dollars per million requests, by part. */
export function costPerMillion(input: CostInput) {
  const gbSeconds = (Math.ceil(input.durationMs) / 1000) * (input.memoryMb / 1024) + (input.extraGbSeconds ?? 0);
  const parts = {
    apiGateway: PRICES.apiGatewayRestPerMillion,
    lambdaRequests: PRICES.lambdaRequestsPerMillion * input.invocations,
    lambdaDuration: gbSeconds * PRICES.lambdaArmPerGbSecond * 1_000_000,
    dynamoDb: input.readUnits * PRICES.dynamoReadPerMillion + input.writeUnits * PRICES.dynamoWritePerMillion,
  };
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) };
}
