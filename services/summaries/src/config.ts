import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The summaries service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('summaries', 8084),
});

/** The summaries service's settings. */
export type Config = typeof config;
