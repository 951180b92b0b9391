/** The REQUEST authorizer on every method (functions/authorizer.ts), its function beside it under the id `Authorizer`. */
import path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { FunctionEnvironment } from '../../lib/config.js';
import type { TableId } from '../../lib/dynamo/tables.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import type { Stage } from '../../lib/stacks.js';
import { ApiFunction, type FunctionConcurrencyProps, type FunctionLogProps, PROJECT_ROOT } from './api-function.js';
import type { TableUses } from './table-access.js';

/** What functions/authorizer.ts reads (a key by its hash, then its customer's plan): it is no route of the table. */
export const AUTHORIZER_TABLES: TableUses = { keys: 'read', customers: 'read' };

export interface ApiKeyAuthorizerProps extends FunctionLogProps, FunctionConcurrencyProps {
  readonly stage: Stage;
  /** How long API Gateway caches a decision per Authorization header value; zero turns the cache off. */
  readonly cacheTtl: Duration;
  /** The environment's tables; the function gets the names of, and access to, those AUTHORIZER_TABLES lists. */
  readonly tables: Readonly<Record<TableId, ITable>>;
  /** Environments kept initialised on the live alias, so no uncached request waits for a cold start. @default 0 */
  readonly provisionedConcurrency?: number;
}

export class ApiKeyAuthorizer extends RequestAuthorizer {
  /** Construct id of the function, a sibling of the authorizer. */
  static readonly FUNCTION_ID = 'Authorizer';
  readonly handlerFunction: ApiFunction;

  constructor(scope: Construct, id: string, props: ApiKeyAuthorizerProps) {
    const { stage, cacheTtl, tables, provisionedConcurrency, ...defaults } = props;
    const handlerFunction = new ApiFunction(scope, ApiKeyAuthorizer.FUNCTION_ID, {
      ...defaults,
      entry: path.join(PROJECT_ROOT, 'functions', 'authorizer.ts'),
      description: `Pet Store ${stage}: checks the API key of every request`,
      environment: { STAGE: stage } satisfies FunctionEnvironment,
      // Every uncached request waits for it: room for the DynamoDB client's retries, yet a hung call fails fast.
      timeout: Duration.seconds(FUNCTION_SETTINGS.authorizerTimeoutSeconds),
      provisionedConcurrency,
    });
    handlerFunction.bindTables(AUTHORIZER_TABLES, tables);
    super(scope, id, {
      authorizerName: `petstore-${stage}-api-key`,
      handler: handlerFunction.live,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: cacheTtl,
    });
    this.handlerFunction = handlerFunction;
  }
}
