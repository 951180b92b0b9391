/** Handler tests: events from the one event factory (infra/local/events.ts) and an invoker that reads the answer. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { proxyEvent as buildEvent, lambdaContext, type ProxyEventInput } from '../../infra/local/events.js';
import type { ApiEvent } from '../../lib/http/response.js';
import { type Answer, answerOfResult } from './answer.js';

export type { Answer } from './answer.js';

/** What the authorizer passes for the default test customer: limits high enough never to refuse. */
export const TEST_AUTHORIZER = {
  principalId: 'handler-test-customer',
  customerId: `handler-test-customer-${randomUUID().slice(0, 8)}`,
  keyId: 'key_0000000000000000',
  plan: 'enterprise',
  perMinute: '20000',
  perDay: '1000000000',
};

/** A proxy event as the gateway would pass it after the test customer's key was accepted (authorizer: null for none). */
export function proxyEvent(input: ProxyEventInput = {}): ApiEvent {
  return buildEvent({ ...input, authorizer: input.authorizer === null ? null : (input.authorizer ?? TEST_AUTHORIZER) });
}

type Handler = (event: ApiEvent, context: Context) => Promise<APIGatewayProxyResult | undefined>;

export async function invoke(handler: Handler, event: ApiEvent): Promise<Answer> {
  // Handler tests fire dozens of requests at one process, where Lambda would give each its own instance:
  // a generous deadline keeps a loaded CI machine from turning queueing into timeouts.
  const result = await handler(event, lambdaContext('test', event.requestContext.requestId, 60_000));
  if (!result) throw new Error('handler returned nothing');
  return answerOfResult(result);
}

export function jsonPost(body: string | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }): ApiEvent {
  return proxyEvent({ method: 'POST', path: '/categories', body, headers });
}
