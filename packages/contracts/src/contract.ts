import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * A contract is one JSON Schema that validates messages at the boundary where they are received
 * and gives the TypeScript type of the same messages, so the two never drift apart.
 */
export interface Contract<T> {
  readonly name: string;
  readonly schema: JSONSchema;
  /** Returns the value typed, or throws ContractViolation naming the first offending field. */
  parse(value: unknown): T;
  is(value: unknown): value is T;
  /** Compiles the validator now rather than at the first value: a server calls it at start-up. */
  compile(): void;
}

export interface Violation {
  /** JSON Pointer of the offending field, "" for the whole value. */
  field: string;
  message: string;
}

export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
  constructor(
    readonly contract: string,
    readonly violations: readonly Violation[],
  ) {
    const first = violations[0];
    super(`${contract}: ${first ? `${first.field || '(root)'} ${first.message}` : 'invalid'}`);
  }
}

/** The pattern of text that is more than white space (a name, a title, a message): at least one other character. */
export const NOT_BLANK = '\\S';

/** Required text that people read: 1 to `max` characters, not white space alone. */
export const requiredText = (max: number) => ({ type: 'string', minLength: 1, maxLength: max, pattern: NOT_BLANK }) as const;

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, useDefaults: false });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

function toViolation(error: ErrorObject): Violation {
  const missing = error.keyword === 'required' ? `/${(error.params as { missingProperty: string }).missingProperty}` : '';
  const extra =
    error.keyword === 'additionalProperties'
      ? `/${(error.params as { additionalProperty: string }).additionalProperty}`
      : '';
  return {
    field: `${error.instancePath}${missing}${extra}`,
    message:
      error.keyword === 'additionalProperties'
        ? 'is not allowed'
        : error.keyword === 'required'
          ? 'is required'
          : error.keyword === 'pattern' && (error.params as { pattern: string }).pattern === NOT_BLANK
            ? 'must not be blank'
            : (error.message ?? 'is invalid'),
  };
}

// The type is computed at each call site only (the overload), never inside the generic body,
// which would make the compiler expand json-schema-to-ts for every possible schema.
export function defineContract<const S extends JSONSchema>(name: string, schema: S): Contract<FromSchema<S>>;
export function defineContract(name: string, schema: JSONSchema): Contract<unknown> {
  let validate: ValidateFunction | undefined;
  const compiled = () => (validate ??= ajv.compile(schema as object));
  return {
    name,
    schema,
    parse(value) {
      const check = compiled();
      if (!check(value)) throw new ContractViolation(name, (check.errors ?? []).map(toViolation));
      return value;
    },
    is(value): value is unknown {
      return compiled()(value) === true;
    },
    compile() {
      compiled();
    },
  };
}
