/**
 * Where the admin CLI writes: the local DynamoDB (DYNAMODB_ENDPOINT, or DynamoDB Local on DYNAMODB_PORT) with the
 * local table names, or with --aws a deployed stack, whose table names come from its CloudFormation outputs.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { adminCliConfig } from '../config.js';
import { createDynamoClient } from '../dynamo/create-client.js';
import { localTableNames, type TableId, type TableSpec } from '../dynamo/tables.js';
import { STACK_NAMES, type Stage, TABLE_OUTPUT_KEYS } from '../stacks.js';

export interface Target {
  client: DynamoDBClient;
  tables: Record<TableSpec['envVar'], string>;
  /** Names the target in the message when it cannot be reached. */
  where: string;
}

export async function resolveTarget(stage: Stage, aws: boolean): Promise<Target> {
  if (!aws) {
    // Read only now, after the arguments are checked: a bad variable must not hide a usage error.
    const { dynamoEndpoint, tablePrefix } = adminCliConfig();
    return {
      client: createDynamoClient(dynamoEndpoint),
      tables: localTableNames(stage, tablePrefix),
      where: `local DynamoDB at ${dynamoEndpoint}`,
    };
  }
  const stackName = STACK_NAMES[stage];
  const cloudFormation = new CloudFormationClient({});
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const tableName = (id: TableId): string => {
    const name = outputs.get(TABLE_OUTPUT_KEYS[id]);
    if (!name) throw new Error(`stack ${stackName} has no output ${TABLE_OUTPUT_KEYS[id]}: is it deployed with this version?`);
    return name;
  };
  // All four, though the commands use three: a stack that lacks one is of another version, which the error says.
  const tables = {
    CATEGORIES_TABLE: tableName('categories'),
    CUSTOMERS_TABLE: tableName('customers'),
    KEYS_TABLE: tableName('keys'),
    COUNTERS_TABLE: tableName('counters'),
    AUDIT_TABLE: tableName('audit'),
  };
  return { client: createDynamoClient(), tables, where: `stack ${stackName}` };
}
