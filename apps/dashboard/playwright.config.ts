import { defineConfig, devices } from '@playwright/test';

/**
 * Browser tests: Debian's Chromium (Playwright's own builds cannot be downloaded here), driven
 * against the three real services that the global setup starts from their builds.
 */
export default defineConfig({
  testDir: './src',
  testMatch: '**/*.browser.ts',
  globalSetup: './browser-tests/global-setup.ts',
  // One worker: the services share the machine's two cores with the browser.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: 'test-results/artifacts',
  use: {
    ...devices['Desktop Chrome'],
    baseURL: process.env['DASHBOARD_TEST_BASE_URL'],
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    permissions: ['clipboard-read', 'clipboard-write'],
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      // This machine has no network beyond loopback: Chromium's own background calls are refused.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
