/**
 * The import rules of ../shared/DESIGN.md, checked by `npm run lint`:
 * - no circular imports anywhere;
 * - server: http -> modules -> engine -> jobs / db / lib; lib/ and context.ts import no module;
 *   a module uses another module only through its service.ts (or its schema.ts, for joins: the
 *   tables are the shared data model that db/schema.ts gathers anyway);
 * - console: app -> features -> components / lib; no feature imports another feature;
 * - production code never imports packages/testkit (the helpers of the tests and the benchmarks).
 */
const SERVER = '^apps/server/src/';
const CONSOLE = '^apps/console/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports: one side must not know the other (move the shared part down).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'server-lib-imports-only-lib',
      severity: 'error',
      comment: 'lib/ holds small shared helpers: it may not depend on anything of the platform above it.',
      from: { path: `${SERVER}lib/` },
      to: { path: SERVER, pathNot: `${SERVER}lib/` },
    },
    {
      name: 'server-context-imports-no-module',
      severity: 'error',
      comment: 'context.ts may name the runtime driver interface (engine/runtime/driver.ts), nothing else of the engine.',
      from: { path: `${SERVER}context\\.ts$` },
      to: { path: `${SERVER}(modules|http|engine|jobs)/`, pathNot: `${SERVER}engine/runtime/driver\\.ts$` },
    },
    {
      name: 'server-module-through-service',
      severity: 'error',
      comment: 'A module uses another module only through its service.ts (or its schema.ts for joins).',
      from: { path: `${SERVER}modules/([^/]+)/` },
      to: {
        path: `${SERVER}modules/[^/]+/`,
        pathNot: [`${SERVER}modules/$1/`, `${SERVER}modules/[^/]+/(service|schema)\\.ts$`],
      },
    },
    {
      name: 'server-below-modules',
      severity: 'error',
      comment: 'The engine, the job runtime, the database layer and lib never import a module or the HTTP layer.',
      from: { path: `${SERVER}(engine|jobs|db|lib)/`, pathNot: `${SERVER}db/schema\\.ts$` },
      to: { path: `${SERVER}(modules|http)/` },
    },
    {
      name: 'server-db-schema-gathers-schemas-only',
      severity: 'error',
      from: { path: `${SERVER}db/schema\\.ts$` },
      to: { path: `${SERVER}modules/`, pathNot: `${SERVER}modules/[^/]+/schema\\.ts$` },
    },
    {
      name: 'console-feature-imports-no-feature',
      severity: 'error',
      comment: 'What two features share belongs in components/ or lib/.',
      from: { path: `${CONSOLE}features/([^/]+)/` },
      to: { path: `${CONSOLE}features/`, pathNot: `${CONSOLE}features/$1/` },
    },
    {
      name: 'console-shared-imports-no-feature',
      severity: 'error',
      from: { path: `${CONSOLE}(components|lib)/` },
      to: { path: `${CONSOLE}(features|app)/` },
    },
    {
      name: 'production-imports-no-testkit',
      severity: 'error',
      comment:
        'packages/testkit serves the tests and the benchmarks only: production code (apps/*/src, the other packages) never imports it.',
      from: { path: '^(apps/[^/]+/src|packages/[^/]+)/', pathNot: ['^packages/testkit/', '\\.test\\.tsx?$'] },
      to: { path: '^packages/testkit/' },
    },
    {
      name: 'edge-depends-on-nothing-of-the-server',
      severity: 'error',
      from: { path: '^apps/edge/' },
      to: { path: '^(apps/server|apps/console|packages/contract)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
