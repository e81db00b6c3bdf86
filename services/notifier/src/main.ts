import { loadNotifierConfig } from './config';
import { startService } from './service';

/** Composition root of the notifier service. */
startService(loadNotifierConfig()).catch((err) => {
  process.stderr.write(
    `${JSON.stringify({ level: 'fatal', service: 'notifier', msg: 'failed to start', err: String(err?.stack ?? err) })}\n`,
  );
  process.exit(1);
});
