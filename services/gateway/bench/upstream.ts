// A downstream service for the benchmark: the kit's HTTP app and token verification (what every service runs),
// answering one statistics-shaped page without a store, so the numbers isolate the gateway's own cost.
import { createHttpApp, createLogger, createMetrics, createTokenVerifier, Readiness, requireAuth } from '@cc/kit';

const port = Number(process.env.PORT ?? 0);
const verify = createTokenVerifier({
  issuer: process.env.AUTH_ISSUER ?? 'cc-suite',
  audience: process.env.AUTH_AUDIENCE ?? 'cc-suite-api',
  jwks: process.env.AUTH_JWKS_URL ?? 'http://127.0.0.1:8080/.well-known/jwks.json',
});
const page = {
  meta: { page: 1, count: 0, pageCount: 0, totalCount: 0 },
  items: [],
  upTo: new Date(0).toISOString(),
};
const app = createHttpApp({
  logger: createLogger('bench-upstream', process.env.LOG_LEVEL ?? 'info', process.stdout),
  metrics: createMetrics('bench_upstream'),
  readiness: new Readiness(),
  routes: (a) => {
    a.get('/stats/agent-activities', requireAuth(verify, 'stats'), (_req, res) => {
      res.json(page);
    });
  },
});
const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'bench upstream listening', port })}\n`);
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
