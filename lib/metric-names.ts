/** Names the functions' metrics and the dashboard agree on; no Powertools import, so the CDK app loads no Metrics. */
export const SERVICE_NAME = 'petstore';

/** One namespace per environment: the stacks share nothing, their metrics included. */
export function metricsNamespace(stage: string): string {
  return `PetStore/${stage}`;
}

/** The variables Powertools reads on Lambda (the service on every log line, the metrics' namespace). */
export function powertoolsEnvironment(environment: Readonly<Record<string, string>>): Record<string, string> {
  const stage = environment.STAGE;
  if (!stage) throw new Error('A function environment without STAGE has no metrics namespace');
  return { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage) };
}

/** What the rate limiter decided for a request that counts (getRateLimitStatus counts nothing). */
export type Outcome = 'admitted' | 'limit' | 'banned';

export const DECISION_METRICS: Readonly<Record<Outcome, string>> = {
  admitted: 'AdmittedRequests',
  limit: 'RateLimitedRequests',
  banned: 'BannedRequests',
};

/** The dimensions of every decision metric (lib/metrics.ts), in the order CloudWatch's SEARCH schemas name them. */
export const DECISION_DIMENSIONS = ['operation', 'plan'] as const;
