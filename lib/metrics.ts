/**
 * CloudWatch metrics of the rate limiter's decisions, through Powertools' Metrics: one EMF line per counted request,
 * counted per plan and operation. The customer and key are properties, not dimensions (a metric per customer would
 * cost per customer): one customer's usage is a Logs Insights query (docs/deploying.md, "Metrics").
 */
import { getBooleanFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AuthContext } from './auth/context.js';
import { runtime } from './config.js';
import { log } from './log.js';
import { DECISION_METRICS, type Outcome } from './metric-names.js';

/**
 * EMF lines become metrics only on Lambda; elsewhere they are noise, written only if POWERTOOLS_METRICS_DISABLED=false
 * asks. On Lambda Powertools' own reading of that variable applies (unset: on).
 */
let enabled: boolean | undefined;
const metricsEnabled = () => {
  enabled ??= !getBooleanFromEnv({ key: 'POWERTOOLS_METRICS_DISABLED', defaultValue: !runtime().onLambda, extendedParsing: true });
  return enabled;
};

let instance: Metrics | undefined;
/** Built on first use (the namespace is read from the environment then), not at import. */
function metricsOf(): Metrics {
  if (!instance) {
    instance = new Metrics({ logger: log });
    // Powertools adds `service` to every dimension set; the namespace already names the environment, and a third
    // dimension would only lengthen every SEARCH schema.
    instance.clearDefaultDimensions();
  }
  return instance;
}

/**
 * One EMF line for one decision (namespace and service from the environment, lib/metric-names.ts). Synchronous from
 * the first dimension to the publish, so concurrent requests in one process never mix their dimensions.
 */
export function recordDecision(operationId: string, caller: Pick<AuthContext, 'plan' | 'customerId' | 'keyId'>, outcome: Outcome): void {
  if (!metricsEnabled()) return;
  const metrics = metricsOf();
  metrics.addDimension('operation', operationId);
  metrics.addDimension('plan', caller.plan);
  metrics.addMetadata('customerId', caller.customerId);
  metrics.addMetadata('keyId', caller.keyId);
  metrics.addMetric(DECISION_METRICS[outcome], MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}
