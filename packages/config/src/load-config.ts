import type { Variable } from './variables.js';

/**
 * A service's variable table: keyed by the field of its configuration object, each variable naming
 * itself in the environment. The configuration's type is inferred from it (`ConfigOf`).
 */
export type ConfigSpec = Record<string, Variable<unknown>>;
/** The configuration object a table gives: each field typed as its variable parses. */
export type ConfigOf<S extends ConfigSpec> = { [K in keyof S]: S[K] extends Variable<infer T> ? T : never };

/** Thrown at start-up when variables are missing or malformed; the message names every one. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

export interface LoadedConfig<S extends ConfigSpec> {
  config: ConfigOf<S>;
  /** The effective configuration by variable name, secrets redacted, for the start-up log line. */
  describe(): Record<string, string>;
}

/** Parses every variable of `spec` from `source`, collecting all problems before failing. */
export function loadConfig<S extends ConfigSpec>(
  spec: S,
  source: Record<string, string | undefined> = process.env,
): LoadedConfig<S> {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, variable] of Object.entries(spec)) {
    try {
      config[field] = variable.parse(source[variable.env]);
    } catch (error) {
      problems.push(`${variable.env} ${(error as Error).message} (${variable.description})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    config: config as ConfigOf<S>,
    describe: () => Object.fromEntries(Object.entries(spec).map(([field, variable]) => [variable.env, variable.display(config[field])])),
  };
}

/** The table by environment name: every variable a service reads, as operators and docs name them. */
export function environmentOf(spec: ConfigSpec): Record<string, Variable<unknown>> {
  return Object.fromEntries(Object.values(spec).map((variable) => [variable.env, variable]));
}
