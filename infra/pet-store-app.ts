/** The CDK app: the staging and production stacks and API Gateway's account stack, checked by cdk-nag's AWS Solutions rules. */
import { App, type AppProps, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { STACK_NAMES, type Stage } from '../lib/stacks.js';
import { API_GATEWAY_ACCOUNT_STACK, ApiGatewayAccountStack } from './api-gateway-account-stack.js';
import { deploymentEnv, stageSettings } from './config.js';
import { PetStoreStack } from './pet-store-stack.js';

export interface PetStoreApp {
  app: App;
  stacks: Record<Stage, PetStoreStack>;
  /** API Gateway's account setting, per stage: the same stack for both stages unless they are pinned apart. */
  accountStacks: Record<Stage, ApiGatewayAccountStack>;
}

/** Staging first, as lib/stacks.ts lists the stages; the type wants one entry per Stage. */
const perStage = <T>(make: (stage: Stage) => T): Record<Stage, T> => ({ staging: make('staging'), production: make('production') });

export function buildApp(props?: AppProps): PetStoreApp {
  const app = new App(props);
  // All of it, not key by key: the settings refuse a key of the project's that they do not know.
  const context = app.node.getAllContext();
  // Both stages' settings before either stack: a bad one fails the synth before esbuild bundles anything.
  const settings = perStage((stage) => stageSettings(stage, context));
  // A stage that names its account and region is pinned to them; -c account/region only fill in what it leaves open.
  const envs = perStage((stage) => deploymentEnv(context, process.env, settings[stage]));
  // One AWS::ApiGateway::Account per account and region: one stack for both stages when they share their environment.
  const sameEnv = envs.staging.account === envs.production.account && envs.staging.region === envs.production.region;
  const shared = sameEnv ? new ApiGatewayAccountStack(app, API_GATEWAY_ACCOUNT_STACK, { env: envs.staging }) : undefined;
  const ownAccountStack = (stage: Stage) => `${API_GATEWAY_ACCOUNT_STACK}-${STACK_NAMES[stage].replace(/^PetStore-/, '')}`;
  const accountStacks = perStage((stage) => shared ?? new ApiGatewayAccountStack(app, ownAccountStack(stage), { env: envs[stage] }));
  const stacks = perStage((stage) => {
    const created = new PetStoreStack(app, STACK_NAMES[stage], { stage, settings: settings[stage], env: envs[stage] });
    // The stage's execution logging needs the account's role set before the stage is created or updated.
    created.addStackDependency(accountStacks[stage], "API Gateway's CloudWatch role must be set in the account before a stage logs");
    return created;
  });
  // cdk-nag 2.x is an Aspect, not a policy-validation plugin.
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { app, stacks, accountStacks };
}
