/**
 * The stage's access-log line: one JSON object per request from $context variables; numbers API Gateway always fills
 * are unquoted for metric filters. API Gateway escapes nothing, so nothing the client chooses freely is logged (no user
 * agent, raw path or header), nor `$context.error.messageString`, which AWS documents only as the message with quotes.
 */
export const ACCESS_LOG_FORMAT = `{${[
  '"requestId":"$context.requestId"',
  '"extendedRequestId":"$context.extendedRequestId"',
  '"requestTime":"$context.requestTime"',
  '"ip":"$context.identity.sourceIp"',
  '"httpMethod":"$context.httpMethod"',
  '"resourcePath":"$context.resourcePath"',
  '"status":$context.status',
  '"responseLatency":$context.responseLatency',
  '"integrationLatency":"$context.integrationLatency"',
  '"responseLength":"$context.responseLength"',
  '"customerId":"$context.authorizer.customerId"',
  '"keyId":"$context.authorizer.keyId"',
  '"authorizerStatus":"$context.authorizer.status"',
  '"authorizerLatency":"$context.authorizer.latency"',
  '"authorizerError":"$context.authorizer.error"',
  '"errorType":"$context.error.responseType"',
  '"xrayTraceId":"$context.xrayTraceId"',
].join(',')}}`;
