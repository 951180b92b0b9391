/**
 * One environment's local gateway, run as its own process so that, as on Lambda, each environment has its own
 * configuration (STAGE, table names) in process.env. Started by infra/local/start.ts; tells it when it listens.
 */
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { config, localConfig } from '../../lib/config.js';
import { gatewayLog } from '../../lib/log.js';
import { docsRoutes } from './docs.js';
import { startGateway } from './gateway.js';
import { rateLayers } from './throttles.js';

try {
  const { PORT: port, HOST: host, LAMBDA_INSTANCES: instances, GATEWAY_THROTTLES: throttles } = localConfig();
  // The stage's figures as cdk.json deploys them: usage plans, and (unless switched off) the rate layers.
  const stage = config().STAGE;
  const settings = cdkJsonStage(stage);
  const gateway = await startGateway(
    port,
    {
      extraRoutes: docsRoutes(),
      instances,
      preload: true,
      requireGatewayKey: settings.requireGatewayKey,
      ...(throttles === 'on' ? { rateLayers: rateLayers(stage, settings) } : {}),
    },
    host,
  );
  process.send?.({ ready: true, url: gateway.url });
  const stop = () => gateway.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
} catch (error) {
  gatewayLog.error('gateway failed to start', { error });
  process.send?.({ ready: false, message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
