/**
 * The stage's access-log line: one JSON object per request, from API Gateway's $context variables. Numbers API
 * Gateway always fills are unquoted so metric filters can compare them; fields that may be "-" stay strings. API
 * Gateway does not escape variables, so nothing the client chooses freely is logged (no user agent, no raw path: a
 * quote in them could forge fields), and no header: never Authorization. No `$context.error.messageString`: AWS
 * documents it only as the message with its quotes, not what it is on a request without an error, and one line that
 * is not JSON escapes the status metric filter; `errorType` names the gateway response, whose text is fixed.
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
