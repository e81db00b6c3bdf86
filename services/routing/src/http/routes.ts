import type { Express } from 'express';

/** Mounts the routing service's HTTP API (its features arrive with their issues). */
export function mountRoutes(_app: Express): void {}
