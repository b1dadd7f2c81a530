/**
 * Typed environment variables. Each variable knows its name in the environment, how to parse its
 * raw text, its default, and whether its value is secret (and so must never be printed).
 */
export interface Variable<T> {
  /** Its name in the environment, as operators set it. */
  readonly env: string;
  readonly description: string;
  /** Secret values are shown as "[redacted]" in the effective-configuration log. Default: false. */
  readonly secret: boolean;
  /** Returns the parsed value, or throws an Error whose message says what is expected. */
  parse(raw: string | undefined): T;
  /** How the value may be shown in logs. */
  display(value: T): string;
}

export interface Common<T> {
  /** Its name in the environment. */
  env: string;
  description: string;
  /** Used when the variable is unset or empty. Without it, the variable is required. */
  default?: T;
  /** Default: false. */
  secret?: boolean;
  /**
   * A further rule on a set value, beyond its type: throws an Error whose message says what is
   * expected ("must be …"; never the value of a secret). Checked with the other variables, so one
   * start names every problem.
   */
  check?: (value: T) => void;
}

/**
 * A variable of its own kind: `parseSet` reads a set value, or throws an Error whose message says
 * what is expected. The other kinds below are made with it.
 */
export function variable<T>(
  options: Common<T>,
  parseSet: (raw: string) => T,
  display: (value: T) => string = (value) => String(value),
): Variable<T> {
  return {
    env: options.env,
    description: options.description,
    secret: options.secret ?? false,
    parse(raw) {
      if (raw === undefined || raw.trim() === '') {
        if (options.default !== undefined) return options.default;
        throw new Error('is required');
      }
      const value = parseSet(raw.trim());
      options.check?.(value);
      return value;
    },
    display: (value) => (options.secret ? '[redacted]' : display(value)),
  };
}

export function string(options: Common<string>): Variable<string> {
  return variable(options, (raw) => raw);
}

export function integer(options: Common<number> & { min?: number; max?: number }): Variable<number> {
  return variable(options, (raw) => {
    if (!/^-?\d+$/.test(raw)) throw new Error(`must be a whole number, got "${raw}"`);
    const value = Number(raw);
    if (options.min !== undefined && value < options.min) throw new Error(`must be at least ${options.min}`);
    if (options.max !== undefined && value > options.max) throw new Error(`must be at most ${options.max}`);
    return value;
  });
}

export function boolean(options: Common<boolean>): Variable<boolean> {
  return variable(options, (raw) => {
    const lowered = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
    if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
    throw new Error(`must be true or false, got "${raw}"`);
  });
}

export function oneOf<const T extends string>(values: readonly T[], options: Common<T>): Variable<T> {
  return variable(options, (raw) => {
    if (!(values as readonly string[]).includes(raw)) {
      throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  });
}

/**
 * A key of exactly `bytes` bytes in base64 (standard or URL-safe, padded or not). Checked
 * strictly: Node's decoder skips what it cannot read, so a mangled key would otherwise pass as a
 * different, shorter one. The error never repeats the value, which is a secret.
 */
export function base64Key(options: Common<string> & { bytes: number; hint?: string }): Variable<string> {
  return variable({ ...options, secret: true }, (raw) => checkedBase64Key(raw, options.bytes, options.hint));
}

/** Comma-separated keys, each as `base64Key` checks it; an error names the position, never a value. */
export function base64Keys(options: Common<string[]> & { bytes: number; hint?: string }): Variable<string[]> {
  return variable({ ...options, secret: true }, (raw) =>
    listItems(raw).map((item, n) => {
      try {
        return checkedBase64Key(item, options.bytes, options.hint);
      } catch (error) {
        throw new Error(`key ${n + 1} ${(error as Error).message}`, { cause: error });
      }
    }),
  );
}

function checkedBase64Key(raw: string, bytes: number, hint: string | undefined): string {
  const digits = raw.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const decoded = Buffer.from(digits, 'base64');
  if (!/^[A-Za-z0-9+/]+$/.test(digits) || decoded.toString('base64').replace(/=+$/, '') !== digits || decoded.length !== bytes) {
    throw new Error(`must be ${bytes} bytes in base64${hint ? ` (${hint})` : ''}`);
  }
  return raw;
}

const listItems = (raw: string): string[] => raw.split(',').map((item) => item.trim()).filter((item) => item !== '');

/**
 * A comma-separated list; empty items are dropped. `T` narrows the items' type where `check`
 * makes sure of it. Default: any string.
 */
export function list<T extends string = string>(options: Common<T[]>): Variable<T[]> {
  return variable(
    options,
    (raw) => listItems(raw) as T[],
    (value) => value.join(','),
  );
}

/** URL parameter names whose values are credentials, kept out of the logged configuration. */
const CREDENTIAL_PARAMETER = /pass|secret|token|key/i;

/**
 * A URL whose scheme is one of `protocols`. Its password, if any, is never displayed, nor
 * credentials given as parameters. With `trimTrailingSlash`, a final "/" is dropped, so paths can
 * be appended to it. Default: kept.
 */
export function url(options: Common<string> & { protocols: readonly string[]; trimTrailingSlash?: boolean }): Variable<string> {
  return variable(
    options,
    (raw) => {
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        throw new Error('must be a valid URL');
      }
      const scheme = parsed.protocol.replace(/:$/, '');
      if (!options.protocols.includes(scheme)) {
        throw new Error(`must use ${options.protocols.join(' or ')}, got "${scheme}"`);
      }
      return options.trimTrailingSlash ? raw.replace(/\/$/, '') : raw;
    },
    (value) => {
      const parsed = new URL(value);
      if (parsed.password) parsed.password = 'redacted';
      // A driver may also take credentials as parameters (PostgreSQL's ?password= and sslpassword=).
      for (const name of [...parsed.searchParams.keys()]) {
        if (CREDENTIAL_PARAMETER.test(name)) parsed.searchParams.set(name, 'redacted');
      }
      return parsed.toString();
    },
  );
}
