/**
 * Layer rules of STYLE.md §3, checked by `./cc test` (and shown to fire by scripts/test/layer-rules.test.ts).
 * node_modules is not excluded, only not followed: an import of express from a domain file must be a dependency
 * the rules can see.
 */
const frameworks = '(express|mongoose|mongodb|kafkajs|axios|opossum|pino|pino-http)';
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'src/domain holds pure logic: no web framework, store, broker or HTTP client, no plumbing libs with I/O.',
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: {
        // Resolved (node_modules/.pnpm/.../node_modules/express/, @types/express) or not resolvable from that package.
        path: [`(^|node_modules/)(@types/)?${frameworks}(/|$)`, '^libs/(bus|store|runtime)/'],
      },
    },
    {
      name: 'domain-reaches-no-framework',
      comment:
        "no import chain from src/domain reaches a framework: a barrel (e.g. @cc/kit's) would load express and pino into domain code and its unit tests. Domain code imports @cc/kit/errors.",
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: { reachable: true, path: `(^|node_modules/)(@types/)?${frameworks}(/|$)` },
    },
    {
      name: 'domain-no-outer-layers',
      comment: 'domain code does not reach into http, store, events or clients of its service.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/domain/' },
      to: { path: '^services/$1/src/(http|store|events|clients)/' },
    },
    {
      name: 'no-service-to-service-imports',
      comment: "services talk through Kafka or HTTP, never through each other's code.",
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'libs-never-import-services',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^(services|test-e2e|deploy)/' },
    },
    {
      name: 'kit-and-contracts-are-the-bottom',
      comment: 'kit and contracts are the lowest libs: they import no bus, store, runtime or testing.',
      severity: 'error',
      from: { path: '^libs/(kit|contracts)/src/' },
      to: { path: '^libs/(bus|store|runtime|testing)/' },
    },
    {
      name: 'no-test-helpers-in-production-code',
      severity: 'error',
      from: { path: '^(services|libs)/[^/]+/src/', pathNot: '^libs/testing/' },
      to: { path: '^libs/testing/' },
    },
    {
      name: 'console-runs-in-the-browser',
      comment: 'the console is a static browser app: it takes only types from contracts, nothing with I/O or Node.',
      severity: 'error',
      from: { path: '^console/src/' },
      to: {
        path: ['^(services|test-e2e|deploy)/', '^libs/(kit|bus|store|runtime|testing)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-no-node-builtins',
      severity: 'error',
      from: { path: '^console/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'simulator-uses-public-apis-only',
      comment: 'the simulator drives the suite through the gateway: no service code, broker, store or plumbing libs.',
      severity: 'error',
      from: { path: '^tools/simulator/' },
      to: {
        path: ['^services/', '^libs/(bus|store|runtime|testing)/', 'node_modules/(kafkajs|mongoose|mongodb)/'],
      },
    },
    {
      name: 'libs-and-services-never-import-tools',
      severity: 'error',
      from: { path: '^(libs|services)/' },
      to: { path: '^tools/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)(\\.tools|\\.cache|\\.data)/', '^console/dist/'] },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    preserveSymlinks: false,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
