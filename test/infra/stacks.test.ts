import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_TARGET } from '../../infra/constructs/api-function.js';
import { AUTHORIZER_MESSAGE_TYPES } from '../../infra/constructs/gateway-responses.js';
import { TABLE_ACTIONS } from '../../infra/constructs/table-access.js';
import {
  FALLBACK_RESPONSE_TYPES,
  GATEWAY_RESPONSES,
  type GatewayResponseSpec,
  UNCUSTOMISED_RESPONSE_TYPES,
} from '../../lib/api-gateway/gateway-responses.js';
import { deprecationVariables } from '../../lib/deprecation.js';
import { TABLES, type TableId } from '../../lib/dynamo/tables.js';
import { ANSWER_HEADERS, BEARER_CHALLENGE, GATEWAY_RATE_LIMIT_HEADERS, INVALID_TOKEN_CHALLENGE } from '../../lib/http/answer-headers.js';
import { DECISION_METRICS, metricsNamespace, SERVICE_NAME } from '../../lib/metric-names.js';
import { PLAN_NAMES } from '../../lib/plans.js';
import { ROUTES } from '../../lib/routes.js';
import { STACK_NAMES, STAGES, type Stage, TABLE_OUTPUT_KEYS, THROTTLE_RATE_OUTPUT } from '../../lib/stacks.js';
import { JsonSchema, resourcesOfType, type TemplateJson } from '../support/cloudformation.js';
import { logicalIdIn, perStage, synthApp } from './synth-app.js';

let app: ReturnType<typeof synthApp>;
let templates: Record<Stage, Template>;
let json: Record<Stage, TemplateJson>;

beforeAll(() => {
  app = synthApp();
  templates = perStage((stage) => app.template(stage));
  json = perStage((stage) => app.json(stage));
}, 120_000);

const resourcesOf = (stage: Stage, type: string) => resourcesOfType(json[stage], type);
const logicalIdOf = (stage: Stage, construct: IConstruct | undefined) => logicalIdIn(app.stacks[stage], construct);
const tableLogicalId = (stage: Stage, id: TableId) => logicalIdOf(stage, app.stacks[stage].tables.tables[id]);
const routes = ROUTES;
/** An alarm's metric math: the expression, and the metrics it reads. */
const AlarmMetrics = v.array(v.object({ Id: v.string(), Expression: v.optional(v.string()), MetricStat: v.optional(JsonSchema) }));
/** An IAM statement's Action, one or several. */
const actionsOf = (statement: { Action: string | string[] }) => [statement.Action].flat();

/** Full path of an API Gateway resource, from its PathPart and ParentId chain. */
function resourcePath(stage: Stage, resourceId: unknown): string {
  if (!resourceId || typeof resourceId !== 'object' || !('Ref' in resourceId) || typeof resourceId.Ref !== 'string') return '';
  const resource = json[stage].Resources[resourceId.Ref];
  if (!resource) throw new Error(`no resource ${JSON.stringify(resourceId)}`);
  return `${resourcePath(stage, resource.Properties?.ParentId)}/${resource.Properties?.PathPart}`;
}

describe.each(STAGES)('the %s stack', (stage) => {
  it('exists under its contract name, with termination protection only in production', () => {
    expect(app.stacks[stage].stackName).toBe(STACK_NAMES[stage]);
    expect(app.artifact(stage).terminationProtection ?? false).toBe(stage === 'production');
  });

  describe('API stage', () => {
    it('is named v1 with X-Ray, detailed metrics, error-level execution logs without data traces, and the throttle of its context', () => {
      const throttle = stage === 'production' ? { rate: 500, burst: 1000 } : { rate: 50, burst: 100 };
      templates[stage].resourceCountIs('AWS::ApiGateway::Stage', 1);
      templates[stage].hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'v1',
        TracingEnabled: true,
        MethodSettings: [
          {
            HttpMethod: '*',
            ResourcePath: '/*',
            MetricsEnabled: true,
            LoggingLevel: 'ERROR',
            DataTraceEnabled: false,
            ThrottlingRateLimit: throttle.rate,
            ThrottlingBurstLimit: throttle.burst,
          },
        ],
      });
    });

    it('writes JSON access logs without the Authorization header or strings the client chooses freely', () => {
      const [, stageResource] = resourcesOf(stage, 'AWS::ApiGateway::Stage')[0] ?? [];
      const format = v.parse(v.string(), stageResource?.Properties?.AccessLogSetting?.Format);
      // Substitute each variable as API Gateway would on any request, with an error or without: a value, or "-" when it
      // has none. Only variables inside quotes may be empty, so every line is JSON (the 429 metric filter reads them).
      for (const value of ['1', '-', '']) {
        const sample = format
          .replace(/"\$context\.[A-Za-z.]+"/g, JSON.stringify(value))
          .replace(/\$context\.(status|responseLatency)\b/g, '1');
        expect(JSON.parse(sample)).toMatchObject({ requestId: value, status: 1, customerId: value });
      }
      // The variables left bare are numbers API Gateway fills on every request; messageString is not one of them.
      expect(format.match(/:\$context\.[A-Za-z.]+/g)).toEqual([':$context.status', ':$context.responseLatency']);
      expect(format.toLowerCase()).not.toContain('authorization');
      // Unescaped client-chosen strings could forge JSON fields in the log.
      expect(format).not.toMatch(/\$context\.(identity\.userAgent|path)\b/);
    });
  });

  describe('authorizer', () => {
    it('is a REQUEST authorizer on the Authorization header, with the cache TTL of the context', () => {
      templates[stage].resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      templates[stage].hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        // cdk.json says 60 for both; the test app overrides staging with -c petstore:staging:authorizerCacheTtlSeconds=30.
        AuthorizerResultTtlInSeconds: stage === 'staging' ? 30 : 60,
      });
    });

    it('reads only the keys and customers tables, and gets only their names', () => {
      const fn = json[stage].Resources[logicalIdOf(stage, app.stacks[stage].api.authorizerFunction)];
      const variables = v.parse(v.record(v.string(), v.unknown()), fn?.Properties?.Environment?.Variables);
      expect(Object.keys(variables).sort()).toEqual([
        'CUSTOMERS_TABLE',
        'KEYS_TABLE',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
        'STAGE',
      ]);
    });
  });

  describe.each(routes.map((r) => [r.operationId, r] as const))('route %s', (_operationId, route) => {
    it("has its method on its path, behind the authorizer, integrated with its own function's live alias", () => {
      const authorizerId = resourcesOf(stage, 'AWS::ApiGateway::Authorizer')[0]?.[0];
      const aliasId = logicalIdOf(stage, app.stacks[stage].api.functions[route.operationId]?.live);
      const methods = resourcesOf(stage, 'AWS::ApiGateway::Method').filter(
        ([, m]) => m.Properties?.HttpMethod === route.method && resourcePath(stage, m.Properties?.ResourceId) === route.path,
      );
      expect(methods).toHaveLength(1);
      const method = methods[0]?.[1].Properties ?? {};
      expect(method.AuthorizationType).toBe('CUSTOM');
      expect(method.AuthorizerId).toEqual({ Ref: authorizerId });
      expect(method.OperationName).toBe(route.operationId);
      expect(method.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(method.Integration.Uri)).toContain(`"${aliasId}"`);
    });

    it('has a function with the environment of its tables, its settings and its deprecation variables, nothing more', () => {
      const fn = json[stage].Resources[logicalIdOf(stage, app.stacks[stage].api.functions[route.operationId])];
      const variables = v.parse(v.record(v.string(), v.unknown()), fn?.Properties?.Environment?.Variables);
      const tableVars = TABLES.filter((t) => t.id in route.tables).map((t) => t.envVar);
      expect(Object.keys(variables).sort()).toEqual(
        [
          'BAN_SECONDS',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_SERVICE_NAME',
          'STAGE',
          'USAGE_RETENTION_DAYS',
          ...deprecationVariables(route.deprecation),
          // Only a function that creates categories is told each customer's allowance of them.
          ...(route.tables.categories === 'write' ? ['CATEGORY_ALLOWANCE'] : []),
          ...tableVars,
        ].sort(),
      );
      expect(variables.STAGE).toBe(stage);
      expect(variables.POWERTOOLS_SERVICE_NAME).toBe(SERVICE_NAME);
      expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe(metricsNamespace(stage));
      expect(variables.BAN_SECONDS).toBe('900');
      expect(variables.USAGE_RETENTION_DAYS).toBe('400');
      // cdk.json sets no dates: the stage's settings are the definitions' defaults, under the names the route gives.
      const { deprecation } = route;
      if (deprecation?.overrides) {
        expect(variables[deprecation.overrides.since]).toBe(deprecation.since);
        expect(variables[deprecation.overrides.sunset]).toBe(deprecation.sunset);
        expect(variables[deprecation.overrides.docsUrl]).toBe(deprecation.docsUrl);
      }
      if (route.tables.categories === 'write') expect(variables.CATEGORY_ALLOWANCE).toBe('100');
      for (const t of TABLES.filter((t) => t.id in route.tables)) expect(variables[t.envVar]).toEqual({ Ref: tableLogicalId(stage, t.id) });
    });

    it("may call only the DynamoDB actions of its tables' access, on those tables' ARNs", () => {
      const fn = app.stacks[stage].api.functions[route.operationId];
      const statements = dynamoStatements(stage, fn?.role);
      expect(statements).toEqual(
        expect.arrayContaining(
          TABLES.flatMap(({ id }) => {
            const access = route.tables[id];
            if (!access) return [];
            return [
              { actions: [...(TABLE_ACTIONS[id][access] ?? [])].sort(), resource: { 'Fn::GetAtt': [tableLogicalId(stage, id), 'Arn'] } },
            ];
          }),
        ),
      );
      expect(statements).toHaveLength(Object.keys(route.tables).length);
    });
  });

  it('gives every function its own role whose only statements are its log group, X-Ray and its DynamoDB tables', () => {
    const api = app.stacks[stage].api;
    const allFunctions = [api.authorizerFunction, ...Object.values(api.functions)];
    const roleIds = new Set<string>();
    for (const fn of allFunctions) {
      const roleId = logicalIdOf(stage, fn.role);
      roleIds.add(roleId);
      expect(json[stage].Resources[roleId]?.Properties?.ManagedPolicyArns).toBeUndefined();
      for (const statement of statementsOf(stage, roleId)) {
        const actions = actionsOf(statement);
        if (actions.every((a) => a.startsWith('xray:'))) {
          // X-Ray's write actions have no resource-level permissions (see the nag suppression's reason).
          expect(actions.sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
          expect(statement.Resource).toBe('*');
        } else if (actions.every((a) => a.startsWith('logs:'))) {
          expect(actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
          expect(statement.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(stage, fn.logGroupRef), 'Arn'] });
        } else {
          expect(actions.every((a) => a.startsWith('dynamodb:') && !a.includes('*'))).toBe(true);
          expect(JSON.stringify(statement.Resource)).not.toContain('*');
        }
      }
    }
    expect(roleIds.size).toBe(routes.length + 1);
  });

  it('gives no function the audit table, nor its name: the admin CLI is its only reader and writer', () => {
    const api = app.stacks[stage].api;
    const auditRef = JSON.stringify({ Ref: tableLogicalId(stage, 'audit') });
    const auditArn = JSON.stringify({ 'Fn::GetAtt': [tableLogicalId(stage, 'audit'), 'Arn'] });
    for (const fn of [api.authorizerFunction, ...Object.values(api.functions)]) {
      expect(JSON.stringify(dynamoStatements(stage, fn.role))).not.toContain(auditArn);
      const variables = json[stage].Resources[logicalIdOf(stage, fn)]?.Properties?.Environment?.Variables;
      expect(JSON.stringify(variables)).not.toContain(auditRef);
    }
  });

  it('runs every function on Node.js 24, arm64, with JSON logs, X-Ray and a deliberate memory size and timeout', () => {
    const functions = resourcesOf(stage, 'AWS::Lambda::Function');
    // One per route, the authorizer and the usage sweep (usage-sweep.test.ts).
    expect(functions).toHaveLength(routes.length + 2);
    const sweepId = logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction);
    for (const [id, fn] of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        // System logs at INFO: Lambda's START and REPORT lines (Init Duration, Max Memory Used) are INFO events, which
        // WARN would drop; application logs at INFO, so the metric lines (no level, read as INFO) are kept.
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: expect.any(String) }, SystemLogLevel: 'INFO', ApplicationLogLevel: 'INFO' },
        TracingConfig: { Mode: 'Active' },
      });
      if (id === sweepId) continue;
      // Below API Gateway's 29 s integration limit; the sweep, which no client waits for, has its own.
      expect(fn.Properties?.Timeout).toBeGreaterThanOrEqual(10);
      expect(fn.Properties?.Timeout).toBeLessThan(29);
    }
    // esbuild targets the same Node.js, so the bundles keep the syntax the runtime has.
    expect(BUNDLE_TARGET).toBe('node24');
  });

  it('keeps every log group for a limited time', () => {
    const groups = resourcesOf(stage, 'AWS::Logs::LogGroup');
    expect(groups).toHaveLength(routes.length + 4); // functions, authorizer, usage sweep, access logs, execution logs
    for (const [, group] of groups) {
      expect(group.Properties?.RetentionInDays).toBe(stage === 'production' ? 365 : 30);
      expect(group.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
    }
  });

  it("creates API Gateway's execution log group itself, before the stage, so API Gateway does not make one kept forever", () => {
    const apiId = logicalIdOf(stage, app.stacks[stage].api.api);
    const groupId = logicalIdOf(stage, app.stacks[stage].api.executionLogGroup);
    const group = json[stage].Resources[groupId];
    // The name API Gateway writes to: API-Gateway-Execution-Logs_<rest api id>/<stage>.
    expect(group?.Properties?.LogGroupName).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, '/v1']] });
    expect(group?.Properties?.RetentionInDays).toBe(stage === 'production' ? 365 : 30);
    expect(group?.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
    const [, stageResource] = resourcesOf(stage, 'AWS::ApiGateway::Stage')[0] ?? [];
    expect(stageResource?.DependsOn).toContain(groupId);
  });

  it('reserves no concurrency unless cdk.json says so: every function draws on the account pool', () => {
    for (const [, fn] of resourcesOf(stage, 'AWS::Lambda::Function')) expect(fn.Properties?.ReservedConcurrentExecutions).toBeUndefined();
  });

  describe('tables', () => {
    it.each(TABLES.map((t) => [t.id, t] as const))(
      '%s is on-demand with point-in-time recovery, its keys, indexes and TTL',
      (_id, spec) => {
        const table = json[stage].Resources[tableLogicalId(stage, spec.id)];
        expect(table?.Properties).toMatchObject({
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          KeySchema: [
            { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
            ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : []),
          ],
        });
        if (spec.ttlAttribute) {
          expect(table?.Properties?.TimeToLiveSpecification).toEqual({ AttributeName: spec.ttlAttribute, Enabled: true });
        } else {
          expect(table?.Properties?.TimeToLiveSpecification).toBeUndefined();
        }
        const indexes = v.parse(v.array(v.object({ IndexName: v.string() })), table?.Properties?.GlobalSecondaryIndexes ?? []);
        expect(indexes.map((i) => i.IndexName)).toEqual((spec.indexes ?? []).map((i) => i.name));
      },
    );

    it(stage === 'production' ? 'are protected from deletion and retained' : 'may be deleted with the stack', () => {
      for (const spec of TABLES) {
        const table = json[stage].Resources[tableLogicalId(stage, spec.id)];
        if (stage === 'production') {
          expect(table?.Properties?.DeletionProtectionEnabled).toBe(true);
          expect(table?.DeletionPolicy).toBe('Retain');
          expect(table?.UpdateReplacePolicy).toBe('Retain');
        } else {
          expect(table?.Properties?.DeletionProtectionEnabled).toBe(false);
          expect(table?.DeletionPolicy).toBe('Delete');
        }
      }
    });
  });

  describe('gateway responses', () => {
    const entries: [string, GatewayResponseSpec][] = Object.entries(GATEWAY_RESPONSES);

    it.each(entries)(
      '%s answers in the Error shape with JSON, X-Request-Id, no-store, nosniff and the gateway X-RateLimit headers',
      (type, spec) => {
        const responses = resourcesOf(stage, 'AWS::ApiGateway::GatewayResponse').filter(([, r]) => r.Properties?.ResponseType === type);
        expect(responses).toHaveLength(1);
        const props = responses[0]?.[1].Properties ?? {};
        // The fallbacks keep API Gateway's status (each type's own); every other customised type states its own.
        expect(props.StatusCode).toBe(FALLBACK_RESPONSE_TYPES.has(type) ? undefined : String(spec.status));
        const body = JSON.parse(props.ResponseTemplates['application/json']);
        expect(body).toEqual({
          code: spec.code,
          message: AUTHORIZER_MESSAGE_TYPES.has(type) ? '$context.authorizer.message' : spec.message,
          status: spec.status,
        });
        expect(Object.keys(body)).toEqual(['code', 'message', 'status']);
        const headers: Record<string, string> = {
          'gatewayresponse.header.Content-Type': "'application/json'",
          'gatewayresponse.header.X-Request-Id': 'context.requestId',
        };
        for (const [name, value] of Object.entries({ ...GATEWAY_RATE_LIMIT_HEADERS, ...ANSWER_HEADERS, ...spec.headers })) {
          headers[`gatewayresponse.header.${name}`] = `'${value}'`;
        }
        expect(props.ResponseParameters).toEqual(headers);
        expect(props.ResponseParameters).toMatchObject({
          'gatewayresponse.header.Cache-Control': "'no-store'",
          'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
        });
      },
    );

    it.each([
      ['UNAUTHORIZED', BEARER_CHALLENGE],
      ['ACCESS_DENIED', INVALID_TOKEN_CHALLENGE],
    ])('%s challenges with WWW-Authenticate: %s (a static value, as gateway responses allow)', (type, challenge) => {
      templates[stage].hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.WWW-Authenticate': `'${challenge}'` }),
      });
    });

    it('the REST API treats every media type as binary, so functions get the bytes of a body as sent', () => {
      templates[stage].hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    });

    it.each([
      ['UNAUTHORIZED', '401', 'UNAUTHORIZED'],
      ['ACCESS_DENIED', '401', 'UNAUTHORIZED'],
      ['MISSING_AUTHENTICATION_TOKEN', '404', 'NOT_FOUND'],
      ['THROTTLED', '429', 'THROTTLED'],
      ['REQUEST_TOO_LARGE', '413', 'PAYLOAD_TOO_LARGE'],
      ['AUTHORIZER_FAILURE', '503', 'SERVICE_UNAVAILABLE'],
      ['INTEGRATION_FAILURE', '503', 'SERVICE_UNAVAILABLE'],
      ['INTEGRATION_TIMEOUT', '503', 'SERVICE_UNAVAILABLE'],
      ['API_CONFIGURATION_ERROR', '500', 'INTERNAL_ERROR'],
    ])('%s is %s %s', (type, status, code) => {
      templates[stage].hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: status,
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp(`^\\{"code":"${code}",`) },
      });
    });

    it('leaves the fallbacks without a status, so no type API Gateway answers with takes theirs', () => {
      for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
        const [[, response] = []] = resourcesOf(stage, 'AWS::ApiGateway::GatewayResponse').filter(
          ([, r]) => r.Properties?.ResponseType === type,
        );
        expect(response?.Properties, type).toBeDefined();
        expect(response?.Properties?.StatusCode, type).toBeUndefined();
      }
    });

    it('customises every type API Gateway documents, but those this API cannot give, each for a reason the template shows', () => {
      // "Gateway response types for API Gateway" (API Gateway Developer Guide), every type of its table.
      const documented = [
        'ACCESS_DENIED',
        'API_CONFIGURATION_ERROR',
        'AUTHORIZER_CONFIGURATION_ERROR',
        'AUTHORIZER_FAILURE',
        'BAD_REQUEST_PARAMETERS',
        'BAD_REQUEST_BODY',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'EXPIRED_TOKEN',
        'INTEGRATION_FAILURE',
        'INTEGRATION_TIMEOUT',
        'INVALID_API_KEY',
        'INVALID_SIGNATURE',
        'MISSING_AUTHENTICATION_TOKEN',
        'QUOTA_EXCEEDED',
        'REQUEST_TOO_LARGE',
        'RESOURCE_NOT_FOUND',
        'THROTTLED',
        'UNAUTHORIZED',
        'UNSUPPORTED_MEDIA_TYPE',
        'WAF_FILTERED',
      ];
      const customised = resourcesOf(stage, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties?.ResponseType);
      expect([...customised, ...Object.keys(UNCUSTOMISED_RESPONSE_TYPES)].sort()).toEqual([...documented].sort());
      // The reasons: no request validator, no IAM authorization, no usage plan quota, Lambda proxy integrations only.
      expect(resourcesOf(stage, 'AWS::ApiGateway::RequestValidator')).toEqual([]);
      const methods = resourcesOf(stage, 'AWS::ApiGateway::Method');
      expect(methods.length).toBeGreaterThan(0);
      for (const [id, plan] of resourcesOf(stage, 'AWS::ApiGateway::UsagePlan')) expect(plan.Properties?.Quota, id).toBeUndefined();
      for (const [id, method] of methods) {
        expect(method.Properties?.AuthorizationType, id).toBe('CUSTOM');
        expect(method.Properties?.RequestValidatorId, id).toBeUndefined();
        expect(method.Properties?.Integration?.Type, id).toBe('AWS_PROXY');
      }
    });

    it('tells a throttled client when to retry', () => {
      templates[stage].hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: 'THROTTLED',
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': "'1'" }),
      });
    });
  });

  describe('outputs', () => {
    it('give the API URL, ending in /v1', () => {
      const value = json[stage].Outputs?.ApiUrl?.Value;
      const parts = v.parse(v.array(v.unknown()), value?.['Fn::Join']?.[1]);
      expect(parts.at(-1)).toMatch(/\/v1$/);
      expect(parts).toContainEqual({ Ref: logicalIdOf(stage, app.stacks[stage].api.api) });
      // No second, slash-terminated URL output from RestApi to confuse the CLI.
      expect(Object.keys(json[stage].Outputs ?? {}).filter((k) => k.includes('Endpoint'))).toEqual([]);
    });

    it.each(TABLES.map((t) => t.id))('give the name of the %s table', (id) => {
      expect(json[stage].Outputs?.[TABLE_OUTPUT_KEYS[id]]?.Value).toEqual({ Ref: tableLogicalId(stage, id) });
    });

    it("give the stage throttle's rate, the figure the admin CLI sells Enterprise limits against", () => {
      expect(json[stage].Outputs?.[THROTTLE_RATE_OUTPUT]?.Value).toBe(stage === 'production' ? '500' : '50');
    });
  });

  describe('operations', () => {
    it('has a dashboard with requests, errors, 429s, latency per operation, authorizer errors and DynamoDB throttles', () => {
      const dashboards = resourcesOf(stage, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const body = JSON.stringify(dashboards[0]?.[1].Properties?.DashboardBody);
      for (const needle of ['Count', '4XXError', '5XXError', 'Responses429', 'ReadThrottleEvents', 'WriteThrottleEvents', 'Errors']) {
        expect(body).toContain(needle);
      }
      for (const route of routes) expect(body).toContain(`${route.operationId} p99`);
      for (const route of routes) expect(body).toContain(`${route.operationId} p50`);
    });

    it("graphs the rate limiter's decisions per plan and per operation from the functions' EMF metrics", () => {
      // The dashboard body is a Fn::Join of strings and tokens; the decision widgets hold no tokens.
      const body = JSON.stringify(resourcesOf(stage, 'AWS::CloudWatch::Dashboard')[0]?.[1].Properties?.DashboardBody).replaceAll('\\', '');
      const schema = `{${metricsNamespace(stage)},operation,plan}`;
      for (const metricName of Object.values(DECISION_METRICS)) expect(body).toContain(`SEARCH('${schema} MetricName="${metricName}"`);
      for (const plan of PLAN_NAMES) {
        expect(body).toContain(`SUM(SEARCH('${schema} MetricName="${DECISION_METRICS.admitted}" plan="${plan}"', 'Sum', 300))`);
      }
      for (const route of routes.filter((r) => r.quota === 'consume')) {
        expect(body).toContain(`operation="${route.operationId}"`);
      }
    });

    it('alarms on the 5xx rate, p99 latency, DynamoDB throttling and Lambda throttling, notifying the SNS topic', () => {
      // The on-call alarms; the rollout's own alarms are asserted in rollout.test.ts, the usage sweep's in
      // usage-sweep.test.ts.
      const ids = new Set(app.stacks[stage].monitoring.alarms.map((alarm) => logicalIdOf(stage, alarm)));
      const alarms = resourcesOf(stage, 'AWS::CloudWatch::Alarm').filter(([id]) => ids.has(id));
      expect(alarms).toHaveLength(4);
      const topicId = logicalIdOf(stage, app.stacks[stage].monitoring.topic);
      for (const [, alarm] of alarms) {
        expect(alarm.Properties?.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.Properties?.OKActions).toEqual([{ Ref: topicId }]);
      }
      const text = JSON.stringify(alarms);
      expect(text).toContain('5XXError');
      expect(text).toContain('"ExtendedStatistic":"p99"');
      expect(text).toContain('ThrottleEvents');
      expect(text).toContain('"MetricName":"Throttles"');
    });

    it('fires the Lambda throttling alarm when any one function is throttled, the authorizer included', () => {
      const [, alarm] =
        resourcesOf(stage, 'AWS::CloudWatch::Alarm').find(([, a]) => JSON.stringify(a).includes('"MetricName":"Throttles"')) ?? [];
      const metrics = v.parse(AlarmMetrics, alarm?.Properties?.Metrics ?? []);
      const expression = metrics.find((m) => m.Expression)?.Expression ?? '';
      const inputs = metrics.filter((m) => m.MetricStat);
      const api = app.stacks[stage].api;
      const functionIds = [api.authorizerFunction, ...Object.values(api.functions)].map((fn) => logicalIdOf(stage, fn));
      expect(inputs.map((m) => m.MetricStat.Metric.Dimensions[0].Value.Ref).sort()).toEqual([...functionIds].sort());
      for (const input of inputs) expect(input.MetricStat.Metric.MetricName).toBe('Throttles');
      expect(alarm?.Properties?.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
      expect(alarm?.Properties?.EvaluationPeriods).toBe(1);
      const threshold = v.parse(v.number(), alarm?.Properties?.Threshold);
      for (const input of inputs) {
        expect(evaluateSum(expression, { [input.Id]: threshold }), `${input.Id} alone`).toBeGreaterThanOrEqual(threshold);
      }
      expect(evaluateSum(expression, {})).toBe(0);
    });

    it("fires the DynamoDB throttling alarm when any one table's reads or writes are throttled, the others silent", () => {
      const [, alarm] = resourcesOf(stage, 'AWS::CloudWatch::Alarm').find(([, a]) => JSON.stringify(a).includes('ThrottleEvents')) ?? [];
      const metrics = v.parse(AlarmMetrics, alarm?.Properties?.Metrics ?? []);
      const expression = metrics.find((m) => m.Expression)?.Expression ?? '';
      const inputs = metrics.filter((m) => m.MetricStat);
      // Every table the API uses, reads and writes (the audit table is the admin CLI's alone; CloudWatch takes 10).
      expect(inputs.map((m) => `${JSON.stringify(m.MetricStat.Metric.Dimensions)} ${m.MetricStat.Metric.MetricName}`).sort()).toEqual(
        TABLES.filter((t) => t.id !== 'audit')
          .flatMap((t) =>
            ['ReadThrottleEvents', 'WriteThrottleEvents'].map(
              (name) => `${JSON.stringify([{ Name: 'TableName', Value: { Ref: tableLogicalId(stage, t.id) } }])} ${name}`,
            ),
          )
          .sort(),
      );
      expect(alarm?.Properties?.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
      const threshold = v.parse(v.number(), alarm?.Properties?.Threshold);
      for (const input of inputs) {
        // DynamoDB publishes nothing for the metrics that saw no throttling.
        expect(evaluateSum(expression, { [input.Id]: threshold }), `${input.Id} alone`).toBeGreaterThanOrEqual(threshold);
      }
      expect(evaluateSum(expression, {})).toBe(0);
    });

    it(stage === 'production' ? 'e-mails the configured address' : 'has no e-mail subscription when none is configured', () => {
      const subscriptions = resourcesOf(stage, 'AWS::SNS::Subscription');
      if (stage === 'production') {
        expect(subscriptions.map(([, s]) => s.Properties)).toEqual([
          expect.objectContaining({ Protocol: 'email', Endpoint: 'oncall@example.com' }),
        ]);
      } else {
        expect(subscriptions).toEqual([]);
      }
    });

    it('puts the WAF web ACL in front of the stage, its rules answering in the Error shape with no-store and nosniff', () => {
      templates[stage].resourceCountIs('AWS::WAFv2::WebACL', 1);
      templates[stage].resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
      templates[stage].hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
        ResourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
      });
      // The rate rule answers with its own response; the body rule through API Gateway's WAF_FILTERED response.
      templates[stage].hasResourceProperties('AWS::WAFv2::WebACL', {
        Rules: Match.arrayWith([
          Match.objectLike({
            Action: {
              Block: {
                CustomResponse: Match.objectLike({
                  ResponseHeaders: Match.arrayWith([
                    { Name: 'Cache-Control', Value: 'no-store' },
                    { Name: 'X-Content-Type-Options', Value: 'nosniff' },
                  ]),
                }),
              },
            },
          }),
        ]),
      });
    });
  });

  describe('checks', () => {
    it('has no unsuppressed cdk-nag (AwsSolutions) errors or warnings', () => {
      const findings = app
        .artifact(stage)
        .messages.filter((m) => m.level !== 'info' && String(m.entry.data).includes('AwsSolutions-'))
        .map((m) => `${m.level} ${m.id}: ${String(m.entry.data).slice(0, 120)}`);
      expect(findings).toEqual([]);
    });

    it('gives every cdk-nag suppression a substantial reason', () => {
      const Suppressions = v.array(v.object({ id: v.string(), reason: v.string() }));
      const suppressions = Object.values(json[stage].Resources).flatMap((r) =>
        v.parse(Suppressions, r.Metadata?.cdk_nag?.rules_to_suppress ?? []),
      );
      expect(suppressions.length).toBeGreaterThan(0);
      for (const s of suppressions) expect(s.reason.length, s.id).toBeGreaterThan(100);
    });

    it('only references resources, parameters and pseudo parameters that exist', () => {
      const known = new Set([...Object.keys(json[stage].Resources), ...Object.keys(json[stage].Parameters ?? {})]);
      const unresolved: string[] = [];
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) {
          node.forEach(visit);
          return;
        }
        if (!node || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key === 'Ref' && typeof value === 'string' && !value.startsWith('AWS::') && !known.has(value)) unresolved.push(value);
          if (key === 'Fn::GetAtt' && Array.isArray(value) && !known.has(String(value[0]))) unresolved.push(String(value[0]));
          if (key === 'Fn::Sub' && typeof value === 'string') {
            for (const [, name] of value.matchAll(/\$\{([^}.!]+)[^}]*\}/g))
              if (!name?.startsWith('AWS::') && !known.has(name ?? '')) unresolved.push(name ?? '');
          }
          visit(value);
        }
      };
      visit(json[stage].Resources);
      visit(json[stage].Outputs);
      expect(unresolved).toEqual([]);
    });
  });
});

describe('snapshot', () => {
  it.each(STAGES)('of the %s template is unchanged (asset hashes redacted)', (stage) => {
    // A version's logical id ends in a hash of its function's code and settings, which changes with the asset.
    const redacted = JSON.stringify(json[stage], null, 1)
      .replace(/\b[0-9a-f]{64}\b/g, '<asset-hash>')
      .replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}\b/g, '$1<version-hash>');
    expect(redacted).toMatchSnapshot();
  });
});

/**
 * One period of CloudWatch metric math, as far as a sum of metrics goes: terms joined by `+`, each a metric id or
 * `FILL(id, n)`. Like CloudWatch, a metric without a value in the period makes the whole sum missing (undefined)
 * unless FILL gives it one.
 */
function evaluateSum(expression: string, values: Readonly<Record<string, number>>): number | undefined {
  let sum = 0;
  for (const term of expression.split('+').map((t) => t.trim())) {
    const fill = /^FILL\((\w+),\s*(-?\d+(?:\.\d+)?)\)$/.exec(term);
    const id = fill ? fill[1] : /^\w+$/.test(term) ? term : undefined;
    if (!id) throw new Error(`evaluateSum does not understand the term ${term} of ${expression}`);
    const value = values[id] ?? (fill ? Number(fill[2]) : undefined);
    if (value === undefined) return undefined;
    sum += value;
  }
  return sum;
}

function statementsOf(stage: Stage, roleId: string): { Action: string | string[]; Resource: unknown }[] {
  return resourcesOf(stage, 'AWS::IAM::Policy')
    .filter(([, p]) =>
      v.parse(v.array(v.unknown()), p.Properties?.Roles ?? []).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })),
    )
    .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement);
}

/** The role's DynamoDB statements, as sorted action lists with their single resource. */
function dynamoStatements(stage: Stage, role: IConstruct | undefined): { actions: string[]; resource: unknown }[] {
  const roleId = logicalIdOf(stage, role);
  return statementsOf(stage, roleId)
    .filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))
    .map((s) => ({ actions: actionsOf(s).sort(), resource: s.Resource }));
}
