import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The analysis service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('analysis', 8085),
});

/** The analysis service's settings. */
export type Config = typeof config;
