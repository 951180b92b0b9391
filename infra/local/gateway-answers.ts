/** The local gateway's own answers, from the same table the CDK stack turns into gateway responses. */
import type { ServerResponse } from 'node:http';
import { GATEWAY_RATE_LIMIT_HEADERS, GATEWAY_RESPONSES, type GatewayResponseType } from '../../lib/http/gateway-responses.js';

export function sendGatewayResponse(res: ServerResponse, type: GatewayResponseType, requestId: string, message?: string): void {
  const spec = GATEWAY_RESPONSES[type];
  const body = JSON.stringify({ code: spec.code, message: message ?? spec.message, status: spec.status });
  res.writeHead(spec.status, {
    'Content-Type': 'application/json',
    'X-Request-Id': requestId,
    ...GATEWAY_RATE_LIMIT_HEADERS,
    ...('headers' in spec ? spec.headers : {}),
  });
  res.end(body);
}
