/** `npm start`'s line per request (method, path, status, ms, request id, customer), text or JSON, keys in a path masked. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { redact } from '../../lib/log.js';
import { requestIdOf } from './malformed-requests.js';

export type RequestLogFormat = 'text' | 'json' | 'off';

export interface RequestLine {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
  customerId: string | undefined;
}

const CONTROL = /\p{Cc}/gu;

export function formatRequestLine(line: RequestLine, format: 'text' | 'json', at = new Date()): string {
  if (format === 'json') return JSON.stringify({ time: at.toISOString(), ...line, customerId: line.customerId ?? null });
  const path = line.path.length > 200 ? `${line.path.slice(0, 200)}…` : line.path;
  return [
    at.toISOString().slice(11, 23),
    line.method.padEnd(6),
    path.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
    line.status === 0 ? '---' : String(line.status),
    `${line.ms} ms`,
    line.requestId,
    line.customerId ?? '-',
  ].join(' ');
}

/** A line when each answer is sent (status 0: the connection closed first). */
export function logRequests(
  server: Server,
  format: RequestLogFormat,
  customerOf: (request: IncomingMessage) => string | undefined,
  write: (text: string) => void = (text) => process.stdout.write(text),
): void {
  if (format === 'off') return;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // The gateway's own listener, added first, has given the request its id by now.
    const requestId = requestIdOf(req) ?? '-';
    res.once('close', () => {
      const line = {
        method: req.method ?? '-',
        path: String(redact('path', req.url ?? '')),
        status: res.headersSent ? res.statusCode : 0,
        ms: Math.round(performance.now() - started),
        requestId,
        customerId: customerOf(req),
      };
      write(`${formatRequestLine(line, format)}\n`);
    });
  });
}
