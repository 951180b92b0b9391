/**
 * Structured JSON logging. Lambda's JSON log format adds the timestamp and request id; this module adds the one
 * rule we never break: no API key, key hash or Authorization header reaches a log line.
 */
const KEY_PATTERN = /pet_(?:live|test)_[A-Za-z0-9]+/g;
const SECRET_FIELDS = /^(authorization|apikey|api_key|keyhash|hash|token)$/i;

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(KEY_PATTERN, 'pet_[REDACTED]');
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: redact(value.stack) };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELDS.test(key) ? '[REDACTED]' : redact(item, depth + 1);
  }
  return out;
}

type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const order: Record<Level, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 };
/** Read at each call, so a test (or an operator's environment change) takes effect without a reload. */
const threshold = () => order[(process.env.LOG_LEVEL?.toUpperCase() as Level) ?? 'INFO'] ?? order.INFO;

export type LogSink = (line: string) => void;
let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Tests capture every line to prove what never appears in one. */
export function setLogSink(next: LogSink): void {
  sink = next;
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (order[level] < threshold()) return;
  sink(JSON.stringify({ level, message: redact(message), ...(redact(fields ?? {}) as object) }));
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('DEBUG', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('INFO', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('WARN', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('ERROR', message, fields),
};
