import { startSystem } from './system';

/**
 * Starts the three services once for every browser test; each test makes a team of its own. The
 * addresses reach the tests through the environment, which Playwright's workers inherit.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const system = await startSystem();
  process.env['DASHBOARD_TEST_BASE_URL'] = system.baseUrl;
  process.env['DASHBOARD_TEST_RECEIVER_URL'] = system.receiverUrl;
  return system.stop;
}
