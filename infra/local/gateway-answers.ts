/** The local gateway's own answers, from the same table the CDK stack turns into gateway responses. */
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { GATEWAY_RESPONSES, type GatewayResponseType, WEB_ACL_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from '../../lib/http/answer-headers.js';

function gatewayAnswer(type: GatewayResponseType, requestId: string, message?: string) {
  const spec = GATEWAY_RESPONSES[type];
  return {
    status: spec.status,
    body: JSON.stringify({ code: spec.code, message: message ?? spec.message, status: spec.status }),
    headers: {
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
      ...GATEWAY_RATE_LIMIT_HEADERS,
      ...ANSWER_HEADERS,
      ...('headers' in spec ? spec.headers : {}),
    },
  };
}

export function sendGatewayResponse(res: ServerResponse, type: GatewayResponseType, requestId: string, message?: string): void {
  const { status, body, headers } = gatewayAnswer(type, requestId, message);
  res.writeHead(status, headers);
  res.end(body);
}

/** The same answer as raw HTTP/1.1, for a request Node's parser refused (clientError); the connection closes after it. */
export function rawGatewayResponse(type: GatewayResponseType, requestId: string, message?: string): string {
  const { status, body, headers } = gatewayAnswer(type, requestId, message);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** An answer WAF gives itself (a rate rule's custom response): static headers only, no X-Request-Id. */
export function sendWebAclResponse(res: ServerResponse, rule: keyof typeof WEB_ACL_RESPONSES): void {
  const spec = WEB_ACL_RESPONSES[rule];
  res.writeHead(spec.status, { 'Content-Type': 'application/json', ...GATEWAY_RATE_LIMIT_HEADERS, ...ANSWER_HEADERS, ...spec.headers });
  res.end(JSON.stringify({ code: spec.code, message: spec.message, status: spec.status }));
}
