/** One operation's function: its handler, exactly its route's tables and settings; `addMethodTo` puts it on the API. */
import path from 'node:path';
import { LambdaIntegration, type Method, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { FunctionEnvironment } from '../../lib/config.js';
import { type DeprecationOverrides, deprecationVariables } from '../../lib/deprecation.js';
import type { TableId } from '../../lib/dynamo/tables.js';
import type { Route } from '../../lib/routes.js';
import { API_STAGE_NAME, type Stage } from '../../lib/stacks.js';
import type { StageSettings } from '../config.js';
import { ApiFunction, type FunctionConcurrencyProps, type FunctionLogProps, PROJECT_ROOT } from './api-function.js';

/** The module an idempotent route's function loads from a file of its own (api-function.ts, separate modules). */
export const IDEMPOTENCY_UTILITY = path.join(PROJECT_ROOT, 'lib/idempotency/utility.mts');

export type OperationSettings = Pick<
  StageSettings,
  'banSeconds' | 'usageRetentionDays' | 'categoryAllowance' | 'petsDeprecatedAt' | 'petsSunsetAt' | 'docsUrl'
>;

export interface OperationFunctionProps extends FunctionLogProps, FunctionConcurrencyProps {
  readonly stage: Stage;
  readonly route: Route;
  /** The environment's tables; the function gets the names of, and access to, those its route declares. */
  readonly tables: Readonly<Record<TableId, ITable>>;
  readonly settings: OperationSettings;
}

export class OperationFunction extends ApiFunction {
  readonly route: Route;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    const { route, stage, settings, tables, ...defaults } = props;
    // A function gets only the deprecation variables its route's deprecation names.
    const deprecation: DeprecationOverrides = {
      PETS_DEPRECATED_AT: settings.petsDeprecatedAt,
      PETS_SUNSET_AT: settings.petsSunsetAt,
      DOCS_URL: settings.docsUrl,
    };
    super(scope, id, {
      ...defaults,
      entry: path.join(PROJECT_ROOT, 'functions', `${route.handler}.ts`),
      separateModules: route.idempotent ? [IDEMPOTENCY_UTILITY] : [],
      description: `Pet Store ${stage}: ${route.operationId} (${route.method} ${route.path})`,
      environment: {
        STAGE: stage,
        BAN_SECONDS: String(settings.banSeconds),
        USAGE_RETENTION_DAYS: String(settings.usageRetentionDays),
        ...Object.fromEntries(
          deprecationVariables(route.deprecation).flatMap((name) => {
            const value = deprecation[name];
            return value === undefined ? [] : [[name, value]];
          }),
        ),
        ...(route.tables.categories === 'write' ? { CATEGORY_ALLOWANCE: String(settings.categoryAllowance) } : {}),
      } satisfies FunctionEnvironment,
    });
    this.route = route;
    this.bindTables(route.tables, tables);
  }

  /** The route's method on `api` (behind the API's default authorizer), integrated with this function's live alias. */
  addMethodTo(api: RestApi): Method {
    const { route } = this;
    // allowTestInvoke: false, so only this stage's API may invoke the alias (never $LATEST).
    const method = api.root
      .resourceForPath(route.path)
      .addMethod(route.method, new LambdaIntegration(this.live, { allowTestInvoke: false }), { operationName: route.operationId });
    // CDK's permission names the stage by reference, so it would be created after the stage serves the method; the
    // stage's literal name depends on the API alone, and PetStoreApi makes the deployment wait for the permission.
    for (const permission of method.node.children.filter((child) => child instanceof CfnPermission))
      permission.sourceArn = api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]*\}/g, '*'), API_STAGE_NAME);
    return method;
  }
}
