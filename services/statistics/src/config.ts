import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The statistics service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('statistics', 8086),
});

/** The statistics service's settings. */
export type Config = typeof config;
