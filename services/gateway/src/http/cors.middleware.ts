import type { RequestHandler } from 'express';

const exposed = [
  'x-request-id',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
];

/**
 * CORS for the configured origins only (none by default): simple and preflight requests. A preflight is answered
 * here, before authentication (browsers send no token with it).
 */
export function cors(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.header('origin');
    if (!origin || !allowed.size) return next();
    res.vary('Origin');
    if (!allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', exposed.join(', '));
    if (req.method === 'OPTIONS' && req.header('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, PATCH, DELETE');
      res.setHeader(
        'Access-Control-Allow-Headers',
        req.header('access-control-request-headers') ?? 'authorization, content-type, accept, x-request-id',
      );
      res.setHeader('Access-Control-Max-Age', '600');
      res.vary('Access-Control-Request-Headers');
      return void res.status(204).end();
    }
    next();
  };
}
