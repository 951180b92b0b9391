/**
 * Requests written as bytes straight to a gateway's socket, for what fetch will not send (a body on a GET, headers
 * over the server's limit, broken framing), and their answers read as the one Answer type.
 */
import { connect } from 'node:net';
import type { Answer } from './answer.js';

/**
 * Writes `bytes` to the server of `url` and resolves with everything it answers before closing the connection.
 * `halfClose` ends the client's side with the last byte (as `nc -N` does), still reading the answer.
 */
export function rawExchange(url: string, bytes: string, { halfClose = false } = {}): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(bytes.slice(0, 40))}`)));
  });
}

/** One raw HTTP/1.1 answer (a chunked body decoded), its body parsed when it is JSON. */
export function answerOfRaw(raw: string): Answer {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const sent = lines.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
  const headers = new Headers(sent);
  let text = rest.join('\r\n\r\n');
  if (headers.get('transfer-encoding') === 'chunked') {
    let decoded = '';
    for (let at = 0; ; ) {
      const end = text.indexOf('\r\n', at);
      const size = Number.parseInt(text.slice(at, end), 16);
      if (!size) break;
      decoded += text.slice(end + 2, end + 2 + size);
      at = end + 2 + size + 2;
    }
    text = decoded;
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, headerNames: sent.map(([name]) => name.toLowerCase()), body, text };
}

/** A request written by hand (`target` as on the request line), closing the connection after its answer. */
export function requestText(method: string, target: string, headers: readonly string[], body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...headers];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${[...lines, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;
}
