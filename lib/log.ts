/** Structured JSON logging through Powertools' Logger; no API key, key hash or Authorization header ever reaches a line. */
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

/** Logger's JSON replacer, for every key and value of a line (an error's message and stack too). */
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

/** One function's Logger, built when it first logs, and its latest invocation, whose context a later-built Logger takes. */
interface FunctionLog {
  built?: { logger: ApiLogger; context: middy.MiddlewareObj };
  latest?: middy.Request;
  invocations: number;
}

/**
 * The process's log state, claimed by the first function chain (on Lambda, the only one). The local gateway runs every
 * function in one process, and each later chain keeps a state of its own, as each would on Lambda: a function that
 * never logs never pays for a Logger's context on its invocations. A line is written for the latest invocation's.
 */
const processLog: FunctionLog = { invocations: 0 };
const functionLogs = [processLog];
let claimed = false;
let current = processLog;
let levelSet: LogLevel | undefined;

function newLogger(): ApiLogger {
  return new ApiLogger({ serviceName: getServiceName() || 'petstore-local', jsonReplacerFn: redact });
}

function logger(): ApiLogger {
  const state = current;
  if (!state.built) {
    const created = newLogger();
    if (levelSet) created.setLogLevel(levelSet);
    // Built during a later invocation than the function's first, that invocation is not the cold start.
    if (state.invocations > 1) created.markWarm();
    state.built = { logger: created, context: injectLambdaContext(created) };
    if (state.latest) state.built.context.before?.(state.latest);
  }
  return state.built.logger;
}

let gateway: ApiLogger | undefined;

function gatewayLogger(): ApiLogger {
  if (!gateway) {
    gateway = newLogger();
    if (levelSet) gateway.setLogLevel(levelSet);
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
 * What every module logs through: one JSON line each, with the Lambda context once `logContext()` ran. The Logger is
 * built on first use: a request that logs nothing never builds it (about 1.7 ms of cold start).
 */
export const log = {
  ...facade(logger),
  setLogLevel: (level: LogLevel) => {
    levelSet = level;
    logger();
    for (const state of functionLogs) state.built?.logger.setLogLevel(level);
    gateway?.setLogLevel(level);
  },
};

/** The local gateway's own lines: a Logger of their own, lest they carry the context of whichever request ran last. */
export const gatewayLog = /* @__PURE__ */ facade(gatewayLogger);

/** Middy middleware: the invocation's context on every line, through `injectLambdaContext` once the Logger is built. */
export const logContext = (): middy.MiddlewareObj => {
  let state = processLog;
  if (claimed) {
    state = { invocations: 0 };
    functionLogs.push(state);
  }
  claimed = true;
  return {
    before: (request) => {
      current = state;
      state.invocations += 1;
      state.latest = request;
      state.built?.context.before?.(request);
    },
    after: (request) => state.built?.context.after?.(request),
    onError: (request) => state.built?.context.onError?.(request),
  };
};
