// End-to-end tier: black-box scenarios through the gateway against the whole running suite.
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];
module.exports = {
  rootDir: __dirname,
  displayName: 'e2e',
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.e2e.test.ts'],
  globalSetup: '<rootDir>/src/global-setup.ts',
  globalTeardown: '<rootDir>/src/global-teardown.ts',
  testTimeout: 180000,
};
