import { readConfig } from './config';
import { startService } from './service';

startService(readConfig()).catch((err) => {
  process.stderr.write(
    `${JSON.stringify({ level: 'fatal', service: 'analysis', msg: 'failed to start', err: String(err?.stack ?? err) })}\n`,
  );
  process.exit(1);
});
