// One jest run for the whole workspace. Source is TypeScript ESM, transformed by swc;
// type-checking is a separate step (`pnpm typecheck`) so tests stay fast.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

/** @type {import('jest').Config} */
export default {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{packages,services,examples,tests}/*/src/**/*.test.ts'],
  moduleNameMapper: {
    // Workspace packages are consumed by name; tests run them from source.
    '^@feedback/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    '^@feedback/([a-z-]+)/([a-z-]+)$': '<rootDir>/packages/$1/src/$2.ts',
    // TypeScript ESM imports say ".js"; the file on disk is ".ts".
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/packages/test-support/src/infrastructure.ts',
  globalTeardown: '<rootDir>/packages/test-support/src/jest-global-teardown.ts',
  testTimeout: 30000,
  // Integration tests share the machine's broker and database; two workers keep a 2-core box responsive.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
};
