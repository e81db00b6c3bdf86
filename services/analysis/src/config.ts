import { join } from 'node:path';
import { authConfigSpec, baseConfigSpec, loadConfig, num, str } from '@cc/kit';

const repoRoot = join(__dirname, '..', '..', '..');

/** Every setting of the analysis service, with its default and description. */
export const configSpec = {
  ...baseConfigSpec('analysis', 8085),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  KAFKA_GROUP_ID: str({ default: 'cc.analysis', desc: 'Kafka consumer group reading interaction.recorded' }),
  ANALYSIS_RECORDING_LIMIT_BYTES: num({
    default: 50 * 1024 * 1024,
    desc: 'Largest accepted recording upload in bytes (larger: 413)',
  }),
  ANALYSIS_TRANSCRIBER: str({
    default: 'pocketsphinx',
    choices: ['pocketsphinx'],
    desc: 'Speech-recognition engine (implementations of the Transcriber interface; see the README)',
  }),
  ANALYSIS_PYTHON: str({ default: 'python3', desc: 'Python interpreter running the speech worker' }),
  ANALYSIS_PYTHONPATH: str({
    default: '',
    desc: "Folder holding the worker's Python packages (default: $CC_TOOLS_DIR/python, else <repo>/.tools/python, where ./cc installs them)",
  }),
  CC_TOOLS_DIR: str({ default: '', desc: "The suite's tools folder (set by ./cc)" }),
  ANALYSIS_WORKER_TIMEOUT_MS: num({
    default: 120_000,
    desc: 'Longest wait for the speech worker on one chunk of audio',
  }),
  ANALYSIS_LEASE_MS: num({
    default: 60_000,
    desc: 'How long a claimed analysis stays with its worker without renewal; after a crash it is requeued this late',
  }),
  ANALYSIS_SWEEP_MS: num({
    default: 30_000,
    desc: 'Safety sweep of the queue (expired leases, work from other instances)',
  }),
  ANALYSIS_READ_CACHE_MS: num({
    default: 10_000,
    desc: 'How long a finished analysis is answered from memory (0: off); bounds how late another instance shows a re-upload as processing',
  }),
  ANALYSIS_MAX_ATTEMPTS: num({ default: 3, desc: 'Attempts at an analysis before it is marked failed' }),
  ANALYSIS_DEFAULT_LANGUAGE: str({
    default: 'en-US',
    desc: 'Language answered for calls whose recording names none and no recognizer ran (segments from events)',
  }),
};

/** Parses the environment once (exits non-zero naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(configSpec, env);
  const pythonPath = config.ANALYSIS_PYTHONPATH || join(config.CC_TOOLS_DIR || join(repoRoot, '.tools'), 'python');
  return { ...config, ANALYSIS_PYTHONPATH: pythonPath };
}

/** The analysis service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;
