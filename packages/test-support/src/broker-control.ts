import { execFileSync } from 'node:child_process';

/**
 * Runs `rabbitmqctl` against the tests' broker: inside its container when the tests started one
 * (TEST_AMQP_CONTAINER_ID, set by the global setup), else on this machine. A test that restarts
 * the broker fails with this error rather than skipping itself where neither works, so "a broker
 * restart loses nothing" is never reported passed without having run.
 */
export async function rabbitmqctl(...args: string[]): Promise<void> {
  const containerId = process.env['TEST_AMQP_CONTAINER_ID'];
  if (containerId) {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await getContainerRuntimeClient();
    const { exitCode, output } = await client.container.exec(client.container.getById(containerId), ['rabbitmqctl', '-q', ...args]);
    if (exitCode !== 0) throw new Error(`rabbitmqctl ${args.join(' ')} in the broker's container exited ${exitCode}: ${output}`);
    return;
  }
  try {
    execFileSync('rabbitmqctl', ['-q', ...args], { stdio: 'pipe', timeout: 60_000 });
  } catch (error) {
    throw new Error(
      `rabbitmqctl ${args.join(' ')} failed: the tests' broker must be local (rabbitmqctl on the PATH, ` +
        `with its Erlang cookie) or a container these tests started`,
      { cause: error },
    );
  }
}
