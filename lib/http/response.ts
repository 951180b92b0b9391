/** The API Gateway proxy result shape and the one way a handler builds a JSON response. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult & { headers: Record<string, string> };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
