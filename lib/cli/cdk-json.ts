/** A stage's settings in `cdk.json` (`petstore.<stage>`) with infra/config.ts's keys and defaults, without aws-cdk-lib. */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { type Stage, THROTTLE_DEFAULTS } from '../stacks.js';
import { ADDRESS_LIMIT_DEFAULT, KEYLESS_LIMIT_DEFAULT } from '../usage-plans.js';

export const CDK_JSON = new URL('../../cdk.json', import.meta.url);

const count = (fallback: number) => v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), fallback);

const StageSchema = v.object({
  throttleRateLimit: count(THROTTLE_DEFAULTS.rateLimit),
  throttleBurstLimit: count(THROTTLE_DEFAULTS.burstLimit),
  wafRateLimitPer5Minutes: count(KEYLESS_LIMIT_DEFAULT),
  wafRateLimitPerIp: count(ADDRESS_LIMIT_DEFAULT),
  wafAllowedAddresses: v.optional(v.array(v.string()), []),
  requireGatewayKey: v.optional(v.boolean(), true),
  account: v.optional(v.string()),
  region: v.optional(v.string()),
});
const CdkJsonSchema = v.object({
  context: v.object({ petstore: v.optional(v.record(v.string(), v.unknown()), {}) }),
});

export type CdkJsonStage = v.InferOutput<typeof StageSchema>;

export function cdkJsonStage(stage: Stage, file: URL = CDK_JSON): CdkJsonStage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file.pathname}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const root = v.safeParse(CdkJsonSchema, parsed);
  const settings = root.success ? v.safeParse(StageSchema, root.output.context.petstore[stage] ?? {}) : undefined;
  if (!settings?.success) throw new Error(`${file.pathname}: petstore.${stage} is not what the CDK app reads (see infra/config.ts)`);
  return settings.output;
}
