/** The API Gateway proxy event and answer, and an operation's result, which finish.ts turns into the answer. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult & { headers: Record<string, string> };

export interface Result {
  status: number;
  /** Serialised as JSON by finish.ts. */
  body: unknown;
  /** Headers of this result only: an error's Retry-After or WWW-Authenticate, a replay's Idempotent-Replayed. */
  headers: Readonly<Record<string, string>>;
}
