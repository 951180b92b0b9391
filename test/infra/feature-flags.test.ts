/**
 * cdk.json carries every feature flag aws-cdk-lib recommends (what `cdk init` writes for a new project), at the
 * recommended value, so `cdk synth` has no unconfigured flag to warn about and an aws-cdk-lib upgrade that recommends
 * a new one fails here until its effect on the templates has been reviewed and the flag added.
 */
import { readFileSync } from 'node:fs';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/pet-store-app.js';
import { STACK_NAMES } from '../../lib/stacks.js';

/**
 * Recommended flags cdk.json sets to today's behaviour instead, each for a reason. annotationsInValidationReport
 * turns every error annotation into a failure of the whole synth: production's missing alarm destination would then
 * stop `cdk deploy PetStore-Staging` too, which synthesizes both stacks (docs/deploying.md, "Before the first
 * production deploy").
 */
const KEPT_AS_BEFORE: Readonly<Record<string, unknown>> = { '@aws-cdk/core:annotationsInValidationReport': false };

const context: Record<string, unknown> = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

describe("cdk.json's feature flags", () => {
  it('include every flag aws-cdk-lib recommends, at the recommended value', () => {
    const recommended = Object.entries(CURRENTLY_RECOMMENDED_FLAGS);
    expect(recommended.length).toBeGreaterThan(50);
    const missing = recommended.filter(([flag]) => !(flag in context)).map(([flag]) => flag);
    expect(missing, 'add these to cdk.json after diffing the templates they change').toEqual([]);
    const expected = (flag: string, value: unknown) => (flag in KEPT_AS_BEFORE ? KEPT_AS_BEFORE[flag] : value);
    const otherValue = recommended.filter(([flag, value]) => JSON.stringify(context[flag]) !== JSON.stringify(expected(flag, value)));
    expect(otherValue.map(([flag]) => flag)).toEqual([]);
  });

  it("let the app synthesize while production's alarm destination is undecided, the error on production's stack only", () => {
    const { app } = buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:version-reporting': false } });
    const assembly = app.synth();
    const errors = (name: string) =>
      assembly
        .getStackArtifact(name)
        .messages.filter((m) => m.level === 'error')
        .map((m) => String(m.entry.data));
    expect(errors(STACK_NAMES.production).join()).toMatch(/no alarm destination/);
    expect(errors(STACK_NAMES.staging)).toEqual([]);
  }, 120_000);
});
