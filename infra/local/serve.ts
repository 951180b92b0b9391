/**
 * One environment's local gateway, run as its own process so that, as on Lambda, each environment has its own
 * configuration (STAGE, table names) in process.env. Started by infra/local/start.ts; tells it when it listens.
 */
import { log } from '../../lib/log.js';
import { docsRoutes } from './docs.js';
import { preloadHandlers, startGateway } from './gateway.js';

const port = Number(process.env.PORT ?? '3000');
const host = process.env.HOST ?? '127.0.0.1';

try {
  await preloadHandlers();
  const gateway = await startGateway(port, { extraRoutes: docsRoutes() }, host);
  process.send?.({ ready: true, url: gateway.url });
  const stop = () => gateway.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
} catch (error) {
  log.error('gateway failed to start', { error });
  process.send?.({ ready: false, message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
