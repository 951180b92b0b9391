/**
 * One environment's local gateway, as its own process so that each environment has its own configuration in
 * process.env, as on Lambda. Started by start.ts; says when it listens, stops when told or when start.ts goes away.
 */
import type { IncomingMessage } from 'node:http';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { config, localConfig } from '../../lib/config.js';
import { gatewayLog } from '../../lib/log.js';
import { docsRoutes } from './docs.js';
import { startGateway } from './gateway.js';
import { logRequests } from './request-line.js';
import { runUsageSweep, startSweepTimer } from './sweep-timer.js';
import { rateLayers } from './throttles.js';

try {
  const { PORT: port, HOST: host, LAMBDA_INSTANCES: instances, REQUEST_LOG: requestLog, GATEWAY_THROTTLES: throttles } = localConfig();
  // Each invoked request's customer, for its line: held by the request, so nothing outlives it (a request whose client
  // left before its function answered has its line already written when the customer is known).
  const customers = new WeakMap<IncomingMessage, string | undefined>();
  // The stage's figures as cdk.json deploys them: usage plans, and (unless switched off) the rate layers.
  const stage = config().STAGE;
  const settings = cdkJsonStage(stage);
  const gateway = await startGateway(
    port,
    {
      extraRoutes: docsRoutes(),
      instances,
      preload: true,
      onInvoked: ({ request, customerId }) => customers.set(request, customerId),
      requireGatewayKey: settings.requireGatewayKey,
      ...(throttles === 'on' ? { rateLayers: rateLayers(stage, settings) } : {}),
    },
    host,
  );
  // The lines of one turn of the event loop in one write: a write to a file or terminal is a system call each.
  // 100,000 JSON lines to /dev/null, 16 a write: 0.86 to 1.13 µs of CPU a line against 3.48 to 3.58 (3 runs each).
  let lines = '';
  const flushLines = () => {
    const text = lines;
    lines = '';
    if (text) process.stdout.write(text);
  };
  logRequests(
    gateway.server,
    requestLog ?? (process.stdout.isTTY ? 'text' : 'json'),
    (request) => customers.get(request),
    (line) => {
      if (!lines) setImmediate(flushLines);
      lines += line;
    },
  );
  process.send?.({ ready: true, url: gateway.url });
  const sweep = startSweepTimer(runUsageSweep);
  const stop = () => {
    sweep.stop();
    // Closing ends the requests in flight, whose lines come after this first flush: flush again before exiting.
    flushLines();
    return gateway.close().then(() => {
      flushLines();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
  process.on('disconnect', stop);
} catch (error) {
  const inUse = error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
  // A port in use is the user's to fix, and one line says so (start.ts prints it); anything else is logged whole.
  if (!inUse) gatewayLog.error('gateway failed to start', { error });
  process.send?.({ ready: false, message: inUse ? 'port in use' : error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
