import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AppError } from '@cc/kit';
import express, { Router } from 'express';

/**
 * The console's policy: scripts, styles, images and API calls from this origin only; no inline script or
 * style, no framing, no plugins, no form posts elsewhere.
 */
export const consoleCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the built console is: `CONSOLE_DIR` when set, else the first `console/dist` found walking up from
 * this file (the workspace when run from source or services/gateway/dist, /app in the image).
 */
export function locateConsole(configured: string, from = __dirname): string | undefined {
  if (configured) return existsSync(join(configured, 'index.html')) ? resolve(configured) : undefined;
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'console', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

function securityHeaders(res: express.Response): void {
  res.setHeader('Content-Security-Policy', consoleCsp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
}

/**
 * `GET /console` (the page) and `/console/assets/*` (hashed, immutable files) from the built console; anything
 * else under /console is a 404, and so is everything when the console was not built.
 */
export function consoleRoutes(dir: string | undefined): Router {
  const r = Router();
  const page: express.RequestHandler = async (_req, res, next) => {
    if (!dir)
      return next(new AppError('REQUEST.NOT_FOUND', 'The console is not built (node scripts/build-console.cjs)'));
    try {
      // Read per request (it is small): a rebuild while the gateway runs names new hashed assets.
      const index = await readFile(join(dir, 'index.html'));
      securityHeaders(res);
      // The page names the current hashed assets: never cache it.
      res.setHeader('Cache-Control', 'no-cache');
      res.type('html').send(index);
    } catch (err) {
      next(err);
    }
  };
  r.get(['/console', '/console/', '/console/index.html'], page);
  if (dir) {
    r.use(
      '/console/assets',
      express.static(join(dir, 'assets'), {
        index: false,
        dotfiles: 'deny',
        fallthrough: true,
        immutable: true,
        maxAge: '365d',
        setHeaders: (res) => securityHeaders(res as unknown as express.Response),
      }),
    );
  }
  r.use('/console', (req, _res, next) =>
    next(new AppError('REQUEST.NOT_FOUND', `No console file ${req.path.slice(0, 200)}`)),
  );
  return r;
}
