// Two tiers: unit (no I/O, *.test.ts) and integration (real Kafka and store, *.int.test.ts).
// test-e2e has its own runner (see test-e2e/README.md).
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];
const esmSwc = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];
// ESM-only dependencies (p-retry, under @cc/kit's retry) are compiled to CommonJS for jest; Node itself loads them.
const esmOnly = ['p-retry', 'is-network-error'];
const common = {
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/(?:\\.pnpm/[^/]+/node_modules/)?(?:${esmOnly.join('|')})/.+\\.js$`]: esmSwc,
  },
  transformIgnorePatterns: [`/node_modules/(?!(?:\\.pnpm/[^/]+/node_modules/)?(?:${esmOnly.join('|')})/)`],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
};
module.exports = {
  // Per-project testTimeout is ignored by jest; integration tests need real-broker time.
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      // scripts/test: checks of the repository itself (the layer rules on a fixture).
      testMatch: [
        '<rootDir>/{libs,services,tools}/*/test/**/*.test.ts',
        '<rootDir>/scripts/test/*.test.ts',
        '<rootDir>/console/test/**/*.test.ts',
      ],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,services}/*/test/**/*.int.test.ts'],
      // Fails a test file whose code sent the store a query that scans (libs/testing/src/store-scans.guard.ts).
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/store-scans.guard.ts'],
    },
    // Deployment checks (rendered manifests, Compose, compiled output) against the real stack; run by ./cc test
    // after the integration tier, one file at a time.
    {
      ...common,
      displayName: 'deploy',
      testMatch: ['<rootDir>/deploy/test/**/*.test.ts'],
    },
  ],
};
