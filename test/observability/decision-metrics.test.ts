/**
 * The rate limiter's decisions as CloudWatch metrics: every counted request writes one embedded metric format
 * line with a count of 1 under AdmittedRequests, RateLimitedRequests or BannedRequests, dimensions operation and
 * plan only, and the customer and key as plain properties for Logs Insights. Driven through the real Middy chain
 * against DynamoDB Local; the EMF lines are read from stdout, where Lambda would ship them to CloudWatch Logs.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, afterEach, assert, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as getRateLimitStatus } from '../../functions/get-rate-limit-status.js';
import { handler as listCategories } from '../../functions/list-categories.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { DECISION_DIMENSIONS, DECISION_METRICS } from '../../lib/metric-names.js';
import { invoke, proxyEvent } from '../support/events.js';
import { captureWrites, quietFreshLogs } from '../support/logs.js';

// lib/metrics.ts decides on first use whether to write EMF lines (off in tests unless asked), and reads its namespace then.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_METRICS_NAMESPACE = 'PetStore/test';

/** An embedded metric format line, as far as these tests read it (loose: what else a line holds stays, to be compared). */
const EmfSchema = v.looseObject({
  _aws: v.looseObject({
    Timestamp: v.number(),
    CloudWatchMetrics: v.array(
      v.looseObject({
        Namespace: v.string(),
        Dimensions: v.array(v.array(v.string())),
        Metrics: v.array(v.looseObject({ Name: v.string(), Unit: v.string() })),
      }),
    ),
  }),
});
const isEmf = (text: string) => text.startsWith('{"_aws"');

let stdout: ReturnType<typeof captureWrites>;
/** The EMF lines written since the test began: Console writes each line, newline included, in one call. */
const emf = () => stdout.chunks.filter(isEmf).map((text) => v.parse(EmfSchema, JSON.parse(text)));
beforeAll(() => {
  stdout = captureWrites(process.stdout, isEmf);
});
afterAll(() => stdout.stop());

// A minute start in the future (see test/rate-limit/limits.test.ts): every request below falls in one window.
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
beforeEach(() => {
  stdout.chunks.length = 0;
  setClock(() => T0);
});
afterEach(() => {
  resetClock();
  vi.unstubAllEnvs();
});

function enterpriseCustomer(perMinute: number) {
  const customerId = `metrics-${randomUUID().slice(0, 8)}`;
  return {
    customerId,
    principalId: customerId,
    keyId: 'key_metrics000000000',
    plan: 'enterprise',
    perMinute: String(perMinute),
    perDay: '1000',
  };
}

describe('decision metrics', () => {
  it('count admitted, rate-limited and banned requests per operation and plan, one EMF line per request', async () => {
    const authorizer = enterpriseCustomer(1);
    // 1 admitted, then refusals; the 10th refusal in the minute (max(10, per-minute limit)) is still answered
    // RATE_LIMIT_EXCEEDED and starts a ban, which answers the requests after it.
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await invoke(listCategories, proxyEvent({ authorizer }))).status);
    expect(statuses).toEqual([200, ...Array(12).fill(429)]);

    expect(emf()).toHaveLength(13);
    const named = emf().map((line) => line._aws.CloudWatchMetrics[0]?.Metrics.map((m) => m.Name));
    expect(named).toEqual([
      [DECISION_METRICS.admitted],
      ...Array(10).fill([DECISION_METRICS.limit]),
      ...Array(2).fill([DECISION_METRICS.banned]),
    ]);
    for (const line of emf()) {
      const [definition] = line._aws.CloudWatchMetrics;
      expect(definition).toEqual({
        Namespace: 'PetStore/test',
        Dimensions: [[...DECISION_DIMENSIONS]],
        Metrics: [{ Name: expect.any(String), Unit: 'Count' }],
      });
      const metricName = definition?.Metrics[0]?.Name;
      assert.isDefined(metricName);
      expect(line).toMatchObject({ operation: 'listCategories', plan: 'enterprise', [metricName]: 1 });
      // The customer is searchable in the line, never a dimension (one metric per customer would cost per customer).
      expect(line).toMatchObject({ customerId: authorizer.customerId, keyId: authorizer.keyId });
      expect(line._aws.Timestamp).toBeGreaterThan(0);
    }
  });

  it('are not written for getRateLimitStatus, which counts nothing', async () => {
    const authorizer = enterpriseCustomer(5);
    const answer = await invoke(getRateLimitStatus, proxyEvent({ path: '/rate-limit', authorizer }));
    expect(answer.status).toBe(200);
    expect(emf()).toEqual([]);
  });
});

describe('where metrics are written', () => {
  async function linesFrom(env: Record<string, string | undefined>): Promise<number> {
    for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
    vi.resetModules();
    quietFreshLogs((await import('../../lib/log.js')).setLogSink);
    const { recordDecision } = await import('../../lib/metrics.js');
    recordDecision('listCategories', { plan: 'free', customerId: 'c', keyId: 'k' }, 'admitted');
    return emf().length;
  }

  it('on Lambda, unless POWERTOOLS_METRICS_DISABLED says otherwise', async () => {
    expect(await linesFrom({ AWS_LAMBDA_FUNCTION_NAME: 'fn', POWERTOOLS_METRICS_DISABLED: undefined })).toBe(1);
    stdout.chunks.length = 0;
    expect(await linesFrom({ AWS_LAMBDA_FUNCTION_NAME: 'fn', POWERTOOLS_METRICS_DISABLED: 'true' })).toBe(0);
  });

  it('not off Lambda (the local gateway, tests), unless POWERTOOLS_METRICS_DISABLED=false', async () => {
    expect(await linesFrom({ AWS_LAMBDA_FUNCTION_NAME: undefined, POWERTOOLS_METRICS_DISABLED: undefined })).toBe(0);
    expect(await linesFrom({ AWS_LAMBDA_FUNCTION_NAME: undefined, POWERTOOLS_METRICS_DISABLED: 'false' })).toBe(1);
  });
});
