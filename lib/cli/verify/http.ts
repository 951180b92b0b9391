/** How `verify` talks to the API: plain fetch, every answer read whole; a request that gets no answer throws why. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  body: unknown;
}

export interface Request {
  method?: 'GET' | 'POST';
  /** Sent as `Authorization: Bearer <key>`; none: no Authorization header at all. */
  key?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends one request to a path below the base URL (`/categories`) and reads its answer. */
export type Send = (path: string, request?: Request) => Promise<Answer>;

/** API Gateway answers itself after 29 s: an answer not come after 35 s is not coming. */
const ANSWER_TIMEOUT_MS = 35_000;

function reason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` : 'interrupted';
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message;
  return error instanceof Error ? error.message : String(error);
}

export function sender(baseUrl: string, signal: AbortSignal): Send {
  return async (path, request = {}) => {
    const url = `${baseUrl}${path}`;
    const headers = new Headers(request.headers);
    if (request.key !== undefined) headers.set('Authorization', `Bearer ${request.key}`);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: request.method ?? 'GET',
        headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)]),
      });
      text = await response.text();
    } catch (error) {
      throw new Error(`${request.method ?? 'GET'} ${url} got no answer: ${reason(error)}`);
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  };
}
