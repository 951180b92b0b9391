/** API Gateway's own answers in the contract's Error shape: one gateway response per entry of GATEWAY_RESPONSES. */
import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { FALLBACK_RESPONSE_TYPES, GATEWAY_RESPONSES, type GatewayResponseSpec } from '../../lib/api-gateway/gateway-responses.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from '../../lib/http/answer-headers.js';
import { constructIdOf } from './construct-id.js';

/** Responses whose message is the reason the authorizer put in its context (wrong environment, revoked, …). */
export const AUTHORIZER_MESSAGE_TYPES: ReadonlySet<string> = new Set(['ACCESS_DENIED']);

/** Adds one gateway response per entry; `MISSING_AUTHENTICATION_TOKEN` gets the id `ResponseMissingAuthenticationToken`. */
export function addGatewayResponses(api: RestApi, responses: Readonly<Record<string, GatewayResponseSpec>> = GATEWAY_RESPONSES): void {
  for (const [type, spec] of Object.entries(responses))
    api.addGatewayResponse(`Response${constructIdOf(type.toLowerCase().replaceAll('_', '-'))}`, {
      type: ResponseType.of(type),
      // A fallback keeps API Gateway's status: one of its own would become the status of every type not customised.
      statusCode: FALLBACK_RESPONSE_TYPES.has(type) ? undefined : String(spec.status),
      responseHeaders: gatewayResponseHeaders(spec),
      templates: { 'application/json': gatewayResponseTemplate(spec, AUTHORIZER_MESSAGE_TYPES.has(type)) },
    });
}

/** Header values of a gateway response are mapping expressions: static strings in single quotes. */
export function gatewayResponseHeaders(spec: GatewayResponseSpec): Record<string, string> {
  const statics = Object.entries({ ...GATEWAY_RATE_LIMIT_HEADERS, ...ANSWER_HEADERS, ...spec.headers }).map(([name, value]) => [
    name,
    quoted(value),
  ]);
  return { 'Content-Type': "'application/json'", 'X-Request-Id': 'context.requestId', ...Object.fromEntries(statics) };
}

/** Exactly `{"code":…,"message":…,"status":N}`. Gateway responses substitute $context variables but run no VTL. */
export function gatewayResponseTemplate(spec: GatewayResponseSpec, messageFromAuthorizer = false): string {
  // The authorizer promises a reason free of quotes and backslashes (docs/deploying.md, "Gateway responses and the authorizer").
  const message = messageFromAuthorizer ? '"$context.authorizer.message"' : staticJson(spec.message);
  return `{"code":${staticJson(spec.code)},"message":${message},"status":${spec.status}}`;
}

function staticJson(text: string): string {
  // A $ or # would be read as a template variable or directive.
  if (/[$#]/.test(text)) throw new Error(`Gateway response text must not contain $ or #: ${text}`);
  return JSON.stringify(text);
}

function quoted(value: string): string {
  if (value.includes("'")) throw new Error(`Gateway response header value must not contain a quote: ${value}`);
  return `'${value}'`;
}
