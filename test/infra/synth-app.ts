/**
 * The CDK app synthesized in-process from cdk.json's context plus a few overrides, once per context per process:
 * test/infra runs unisolated (vitest.config.ts), so its files share one synth. Bundling is skipped with CDK's own
 * `aws:cdk:bundling-stacks` context (what `cdk synth --exclusively` uses): every NodejsFunction then points at a
 * stub asset, and the templates are otherwise those `npm run synth` produces. Templates are handed out as copies.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import * as v from 'valibot';
import { buildApp } from '../../infra/pet-store-app.js';
import { STACK_NAMES, type Stage } from '../../lib/stacks.js';
import { readTemplate, type TemplateJson } from '../support/cloudformation.js';

const settings = v.record(v.string(), v.unknown());
const cdkJson = v.parse(
  v.object({ context: v.looseObject({ petstore: v.object({ production: settings, staging: settings }) }) }),
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')),
);

/** cdk.json's context: the project's settings and the feature flags every synth runs with. */
export const CDK_JSON_CONTEXT: Readonly<Record<string, unknown>> = cdkJson.context;

/** cdk.json's settings of each stage (its `petstore` context), as written there. */
export const CDK_JSON_SETTINGS: Readonly<Record<Stage, Readonly<Record<string, unknown>>>> = cdkJson.context.petstore;

/** One value per stage, made by `make`. */
export function perStage<T>(make: (stage: Stage) => T): Record<Stage, T> {
  return { production: make('production'), staging: make('staging') };
}

/** Overrides as `-c` would pass them (strings), so the command-line path of the settings is exercised too. */
export const TEST_OVERRIDES = {
  // A fixed environment keeps the templates (and the snapshot) independent of the developer's CDK_DEFAULT_*.
  account: '123456789012',
  region: 'eu-west-1',
  'petstore:staging:authorizerCacheTtlSeconds': '30',
  'petstore:production:alarmEmail': 'oncall@example.com',
} as const;

type SynthesizedApp = ReturnType<typeof synthesize>;
const synthesized = new Map<string, SynthesizedApp>();

/** The app with these context values over cdk.json's and TEST_OVERRIDES; the same object for the same context. */
export function synthApp(extraContext: Record<string, unknown> = {}): SynthesizedApp {
  const key = JSON.stringify(extraContext);
  let app = synthesized.get(key);
  if (!app) {
    app = synthesize(extraContext);
    synthesized.set(key, app);
  }
  return app;
}

function synthesize(extraContext: Record<string, unknown>) {
  const built = buildApp({
    outdir: mkdtempSync(path.join(tmpdir(), 'petstore-cdk-')),
    context: {
      ...CDK_JSON_CONTEXT,
      ...TEST_OVERRIDES,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:version-reporting': false,
      ...extraContext,
    },
  });
  const assembly = built.app.synth();
  const artifact = (stage: Stage): CloudFormationStackArtifact => assembly.getStackByName(STACK_NAMES[stage]);
  return {
    ...built,
    assembly,
    artifact,
    template: (stage: Stage) => Template.fromJSON(structuredClone(artifact(stage).template)),
    /** A copy of the stage's template, read through the schema of test/support/cloudformation.ts. */
    json: (stage: Stage): TemplateJson => readTemplate(structuredClone(artifact(stage).template)),
  };
}

/** The logical id in `stack` of a construct's CloudFormation resource (its default child, or itself). */
export function logicalIdIn(stack: Stack, construct: IConstruct | undefined): string {
  const element = construct?.node.defaultChild ?? construct;
  if (!(element instanceof CfnElement)) throw new Error(`${construct?.node.path} has no CloudFormation resource`);
  return stack.getLogicalId(element);
}
