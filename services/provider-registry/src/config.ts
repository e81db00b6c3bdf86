import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The provider-registry service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('provider-registry', 8082),
});

/** The provider-registry service's settings. */
export type Config = typeof config;
