import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The gateway service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('gateway', 8080),
});

/** The gateway service's settings. */
export type Config = typeof config;
