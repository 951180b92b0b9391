/**
 * Structured JSON logging through Powertools for AWS Lambda's Logger, and the one rule we never break: no API key,
 * key hash or Authorization header reaches a log line.
 */
import { getServiceName } from '@aws-lambda-powertools/commons/utils/env';
import type { LogItem } from '@aws-lambda-powertools/logger';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { LogItemExtraInput, LogItemMessage, LogLevel } from '@aws-lambda-powertools/logger/types';
import type middy from '@middy/core';

const KEY_PATTERN = /pet_(?:live|test)_[A-Za-z0-9]+/g;
/** A SHA-256 in hex is what the keys table stores for a key: never worth logging, whatever field holds it. */
const HASH_PATTERN = /\b[0-9a-f]{64}\b/gi;
const SECRET_FIELDS = /^(authorization|apikey|api_key|keyhash|hash|token)$/i;

/**
 * Logger's JSON replacer: called for every key and value of a line, nested ones included, before Logger's own
 * handling of errors (whose message and stack then pass through here as strings too).
 */
export function redact(key: string, value: unknown): unknown {
  if (SECRET_FIELDS.test(key)) return '[REDACTED]';
  if (typeof value === 'string') return value.replace(KEY_PATTERN, 'pet_[REDACTED]').replace(HASH_PATTERN, '[REDACTED]');
  return value;
}

export type LogSink = (line: string) => void;
let sink: LogSink | undefined;

/** Writes to a sink when one is set (tests, to prove what never appears in a line), else as Logger does: stdout. */
class ApiLogger extends Logger {
  /** Not the process's cold start: the Logger was built on a later invocation. */
  markWarm(): void {
    this.coldStart = false;
  }

  protected override printLog(logLevel: number, item: LogItem): void {
    if (!sink) {
      super.printLog(logLevel, item);
      return;
    }
    item.prepareForPrint();
    sink(JSON.stringify(item.getAttributes(), this.getJsonReplacer()));
  }
}

/** @internal Tests capture every line; `setLogSink(undefined)` writes to stdout again. */
export function setLogSink(next: LogSink | undefined): void {
  sink = next;
}

/** The process's Logger and Powertools' context middleware over it, once built. */
let built: { logger: ApiLogger; context: middy.MiddlewareObj } | undefined;
/** The latest invocation's request, which a Logger built later takes its context from. */
let latest: middy.Request | undefined;
let invocations = 0;

function newLogger(): ApiLogger {
  return new ApiLogger({ serviceName: getServiceName() || 'petstore-local', jsonReplacerFn: redact });
}

/** The process's Logger, built on first use with the latest invocation's context. */
function logger(): ApiLogger {
  if (!built) {
    const created = newLogger();
    // Built during a later invocation than the process's first, that invocation is not the cold start.
    if (invocations > 1) created.markWarm();
    built = { logger: created, context: injectLambdaContext(created) };
    if (latest) built.context.before?.(latest);
  }
  return built.logger;
}

/** The local gateway's Logger (`gatewayLog`), once built; it never takes an invocation's context. */
let gateway: ApiLogger | undefined;

function gatewayLogger(): ApiLogger {
  if (!gateway) {
    gateway = newLogger();
    if (built) gateway.setLogLevel(built.logger.getLevelName());
  }
  return gateway;
}

function facade(get: () => ApiLogger) {
  return {
    debug: (input: LogItemMessage, ...extra: LogItemExtraInput) => get().debug(input, ...extra),
    info: (input: LogItemMessage, ...extra: LogItemExtraInput) => get().info(input, ...extra),
    warn: (input: LogItemMessage, ...extra: LogItemExtraInput) => get().warn(input, ...extra),
    error: (input: LogItemMessage, ...extra: LogItemExtraInput) => get().error(input, ...extra),
  };
}

/**
 * Every line is one JSON object with `level`, `message`, `timestamp`, `service`, the Lambda context (request id,
 * cold start, function name, ARN, memory) once `logContext()` has run for the invocation, and the X-Ray trace id
 * (`_X_AMZN_TRACE_ID`). Lambda's JSON log format stores such a line as it is and filters it by its `level`. The
 * level comes from Lambda's log level setting (`AWS_LAMBDA_LOG_LEVEL`, which wins), else `POWERTOOLS_LOG_LEVEL`
 * or `LOG_LEVEL`, else INFO; it is read when the first line is written.
 *
 * The Logger is built on first use, not at import: a request that logs nothing (every admitted or refused call of an
 * operation) never builds it, which takes about 1.7 ms off a function's cold start. `logContext()` keeps the
 * invocation's context until then, so the first line carries it as every later one does, and `cold_start` is true
 * only on the process's first invocation, whichever invocation builds the Logger.
 *
 * The local gateway, which runs the functions in its own process, writes its own lines through `gatewayLog`: a
 * Logger of their own that never takes an invocation's context.
 *
 * The facade every module logs through: `log.info(message, fields)`. On Lambda the service name comes from
 * POWERTOOLS_SERVICE_NAME (set by the CDK function); the local gateway and tests have none.
 */
export const log = {
  ...facade(logger),
  setLogLevel: (level: LogLevel) => {
    logger().setLogLevel(level);
    gateway?.setLogLevel(level);
  },
};

/**
 * The local gateway's own lines (infra/local), which it writes outside any invocation. The gateway runs the functions
 * in its process, and the process's Logger keeps the latest invocation's context (request id, function name) until
 * the next invocation replaces it: on Lambda every line is written during the invocation it names, but a line the
 * gateway wrote through it would carry whichever request ran last. So these lines go through a Logger of their own,
 * with the same sink, redaction and level, that never takes an invocation's context; each names its request in a
 * `requestId` field.
 */
export const gatewayLog = /* @__PURE__ */ facade(gatewayLogger);

/**
 * Middy middleware: puts the invocation's Lambda context (request id, cold start, …) on every line it logs, through
 * Powertools' own `injectLambdaContext` once the Logger is built; until then it only keeps the request.
 */
export const logContext = (): middy.MiddlewareObj => ({
  before: (request) => {
    invocations += 1;
    latest = request;
    built?.context.before?.(request);
  },
  after: (request) => built?.context.after?.(request),
  onError: (request) => built?.context.onError?.(request),
});
