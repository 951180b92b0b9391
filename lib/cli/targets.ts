/**
 * Where the admin CLI writes: the local DynamoDB (DYNAMODB_ENDPOINT, or DynamoDB Local on DYNAMODB_PORT) with the
 * local table names, or with --aws a deployed stack, whose table names come from its CloudFormation outputs.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
// The stack's names live with the CDK app; that module is free of CDK imports.
import { STACK_NAMES, TABLE_OUTPUT_KEYS } from '../../infra/outputs.js';
import type { Stage } from '../auth/keys.js';
import { createDynamoClient } from '../dynamo/create-client.js';
import { localTableNames, TABLES, type TableSpec } from '../dynamo/tables.js';

export interface Target {
  client: DynamoDBClient;
  tables: Record<TableSpec['envVar'], string>;
  where: string;
}

export async function resolveTarget(stage: Stage, aws: boolean): Promise<Target> {
  if (!aws) {
    const endpoint = process.env.DYNAMODB_ENDPOINT || `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? '8000'}`;
    return {
      client: createDynamoClient(endpoint),
      tables: localTableNames(stage, process.env.PETSTORE_TABLE_PREFIX ?? 'petstore-'),
      where: `local DynamoDB at ${endpoint}`,
    };
  }
  const stackName = STACK_NAMES[stage];
  const cloudFormation = new CloudFormationClient({});
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const tables = Object.fromEntries(
    TABLES.map(({ id, envVar }) => {
      const name = outputs.get(TABLE_OUTPUT_KEYS[id]);
      if (!name) throw new Error(`stack ${stackName} has no output ${TABLE_OUTPUT_KEYS[id]}: is it deployed with this version?`);
      return [envVar, name];
    }),
  ) as Target['tables'];
  return { client: createDynamoClient(), tables, where: `stack ${stackName}` };
}
