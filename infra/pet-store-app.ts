/**
 * The CDK app: the staging and the production stack from one stack class, each with its settings from context,
 * checked by cdk-nag's AWS Solutions rules. `infra/app.ts` runs it for the CLI; tests build it in-process.
 */
import { App, type AppProps, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { STACK_NAMES, type Stage } from '../lib/stacks.js';
import { deploymentEnv, type StageSettings, stageSettings } from './config.js';
import { PetStoreStack } from './pet-store-stack.js';

export interface PetStoreApp {
  app: App;
  stacks: Record<Stage, PetStoreStack>;
}

export function buildApp(props?: AppProps): PetStoreApp {
  const app = new App(props);
  // All of it, not key by key: the settings refuse a key of the project's that they do not know.
  const context = app.node.getAllContext();
  // Both stages' settings before either stack: a bad one fails the synth before esbuild bundles anything.
  const settings: Record<Stage, StageSettings> = {
    staging: stageSettings('staging', context),
    production: stageSettings('production', context),
  };
  const stack = (stage: Stage) => {
    const { account, region } = settings[stage];
    // A stage that names its account and region is pinned to them; -c account/region only fill in what it leaves open.
    const env = deploymentEnv(context, process.env, { account, region });
    return new PetStoreStack(app, STACK_NAMES[stage], { stage, settings: settings[stage], env });
  };
  // Staging first, as lib/stacks.ts lists the stages; the type wants one entry per Stage.
  const stacks: Record<Stage, PetStoreStack> = { staging: stack('staging'), production: stack('production') };
  // cdk-nag 2.x is an Aspect, not a policy-validation plugin (it has no IPolicyValidationPlugin), so it is added
  // here; aws-cdk-lib's own CloudFormation validation runs as a plugin at synth (see cdk.json's feature flag).
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { app, stacks };
}
