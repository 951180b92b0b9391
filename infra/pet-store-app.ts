/**
 * The CDK app: the staging and the production stack from one stack class, each with its settings from context,
 * checked by cdk-nag's AWS Solutions rules. `infra/app.ts` runs it for the CLI; tests build it in-process.
 */
import { App, type AppProps, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { STACK_NAMES, type Stage } from '../lib/stacks.js';
import { deploymentEnv, stageSettings } from './config.js';
import { PetStoreStack } from './pet-store-stack.js';

export interface PetStoreApp {
  app: App;
  stacks: Record<Stage, PetStoreStack>;
}

export function buildApp(props?: AppProps): PetStoreApp {
  const app = new App(props);
  const context = (key: string) => app.node.tryGetContext(key);
  const stack = (stage: Stage) => {
    const settings = stageSettings(stage, context);
    // A stage that names its account and region is pinned to them; -c account/region only fill in what it leaves open.
    const env = deploymentEnv(context, process.env, { account: settings.account, region: settings.region });
    return new PetStoreStack(app, STACK_NAMES[stage], { stage, settings, env });
  };
  // Staging first, as lib/stacks.ts lists the stages; the type wants one entry per Stage.
  const stacks: Record<Stage, PetStoreStack> = { staging: stack('staging'), production: stack('production') };
  // cdk-nag 2.x is an Aspect, not a policy-validation plugin (it has no IPolicyValidationPlugin), so it is added
  // here; aws-cdk-lib's own CloudFormation validation runs as a plugin at synth (see cdk.json's feature flag).
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { app, stacks };
}
