import type { Variable } from './variables.js';

export type ConfigSpec = Record<string, Variable<unknown>>;
export type ConfigValues<S extends ConfigSpec> = { [K in keyof S]: S[K] extends Variable<infer T> ? T : never };

/** Thrown at start-up when variables are missing or malformed; the message names every one. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

export interface LoadedConfig<S extends ConfigSpec> {
  values: ConfigValues<S>;
  /** The effective configuration with secrets redacted, for the start-up log line. */
  describe(): Record<string, string>;
}

/** Parses every variable of `spec` from `source`, collecting all problems before failing. */
export function loadConfig<S extends ConfigSpec>(
  spec: S,
  source: Record<string, string | undefined> = process.env,
): LoadedConfig<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(spec)) {
    try {
      values[name] = variable.parse(source[name]);
    } catch (error) {
      problems.push(`${name} ${(error as Error).message} (${variable.description})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    values: values as ConfigValues<S>,
    describe: () =>
      Object.fromEntries(Object.entries(spec).map(([name, variable]) => [name, variable.display(values[name])])),
  };
}
