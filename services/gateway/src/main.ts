import { loadGatewayConfig } from './config';
import { startService } from './service';

startService(loadGatewayConfig()).catch((err) => {
  process.stderr.write(
    `${JSON.stringify({ level: 'fatal', service: 'gateway', msg: 'failed to start', err: String(err?.stack ?? err) })}\n`,
  );
  process.exit(1);
});
