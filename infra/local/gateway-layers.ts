/**
 * What the local gateway does around the authorizer: WAF's rate rules before it, then API Gateway's API key requirement
 * (the named key must be in a usage plan of the stage), the usage plan's throttle and the stage's, each refusal as its
 * layer answers deployed.
 */
import * as v from 'valibot';
import type { GatewayResponseType, WEB_ACL_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { PlanSchema } from '../../lib/plans.js';
import { usagePlanFor } from '../../lib/usage-plans.js';
import type { AuthOutcome } from './authorizer.js';
import type { RateLayer, RateLayers } from './throttles.js';
import { usagePlanOfKey } from './usage-plan-model.js';

export interface LayerOptions {
  rateLayers?: RateLayers;
  /** As cdk.json's requireGatewayKey deploys. @default true */
  requireGatewayKey?: boolean;
  /** Told which layer refused a request (tests). */
  onRefused?: (layer: RateLayer | 'api-key') => void;
}

/** A source address as WAF sees it: an IPv4 client of a dual-stack socket without its IPv6 prefix. */
export const sourceAddress = (remote: string | undefined) => (remote ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');

export function webAclRefusal(
  options: LayerOptions,
  sourceIp: string,
  authorization: string | undefined,
): keyof typeof WEB_ACL_RESPONSES | undefined {
  const rule = options.rateLayers?.webAcl(sourceIp, authorization);
  if (!rule) return undefined;
  options.onRefused?.(rule);
  return rule === 'keyless-rate' ? 'KEYLESS_RATE' : 'ADDRESS_RATE';
}

const ContextLimits = v.object({
  plan: PlanSchema,
  perMinute: v.pipe(v.string(), v.transform(Number)),
  perDay: v.pipe(v.string(), v.transform(Number)),
});

/** The usage plan of an authorizer context's plan and limits (its fallback), by those values: the same on most requests. */
const fallbacks = new Map<string, ReturnType<typeof usagePlanFor> | undefined>();

function fallbackPlan(context: Extract<AuthOutcome, { allowed: true }>['context']): ReturnType<typeof usagePlanFor> | undefined {
  const id = JSON.stringify([context.plan, context.perMinute, context.perDay]);
  if (fallbacks.has(id)) return fallbacks.get(id);
  const limits = v.safeParse(ContextLimits, context);
  const plan = limits.success ? usagePlanFor(limits.output.plan, limits.output) : undefined;
  if (fallbacks.size >= 10_000) fallbacks.clear();
  fallbacks.set(id, plan);
  return plan;
}

/** After an Allow: the gateway response that refuses the request (no usage plan key, a throttle), if one does. */
export async function gatewayRefusal(
  options: LayerOptions,
  auth: Extract<AuthOutcome, { allowed: true }>,
  method: { method: string; resource: string },
): Promise<GatewayResponseType | undefined> {
  const required = options.requireGatewayKey ?? true;
  let usagePlan: ReturnType<typeof usagePlanFor> | undefined;
  // Usage plans apply to methods that require the key; without the requirement API Gateway looks at none.
  if (required) {
    const fallback = fallbackPlan(auth.context);
    const key = auth.usageIdentifierKey;
    usagePlan = key && fallback ? await usagePlanOfKey(String(auth.context.customerId), key, fallback) : undefined;
    if (!usagePlan) {
      options.onRefused?.('api-key');
      return 'INVALID_API_KEY';
    }
  }
  const layer = options.rateLayers?.gateway({ usagePlan, gatewayKey: auth.usageIdentifierKey, ...method });
  if (!layer) return undefined;
  options.onRefused?.(layer);
  return 'THROTTLED';
}
