import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The routing service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('routing', 8081),
});

/** The routing service's settings. */
export type Config = typeof config;
