// End-to-end tier: black-box scenarios through the gateway against the whole running suite.
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];
const esmSwc = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];
// ESM-only dependencies (p-retry, under @cc/kit's retry) are compiled to CommonJS for jest, as in the root config.
const esmOnly = ['p-retry', 'is-network-error'];
module.exports = {
  rootDir: __dirname,
  displayName: 'e2e',
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/(?:\\.pnpm/[^/]+/node_modules/)?(?:${esmOnly.join('|')})/.+\\.js$`]: esmSwc,
  },
  transformIgnorePatterns: [`/node_modules/(?!(?:\\.pnpm/[^/]+/node_modules/)?(?:${esmOnly.join('|')})/)`],
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e.test.ts'],
  globalSetup: '<rootDir>/src/global-setup.ts',
  globalTeardown: '<rootDir>/src/global-teardown.ts',
  testTimeout: 180000,
};
