import type { z } from 'zod';
import { decimalString, intString, uintString } from './amounts.ts';
import { pubkey } from './pubkey.ts';

/** One field of an object schema, described for people (docs/api.md). */
interface FieldOutline {
  readonly name: string;
  readonly required: boolean;
  readonly accepts: string;
}

const NAMED = new Map<unknown, string>([
  [uintString, 'integer string ≥ 0'],
  [intString, 'integer string'],
  [decimalString, 'decimal string'],
  [pubkey, 'base58 public key'],
]);

// zod 4 keeps a schema's structure in `_zod.def`; only the parts read here are typed.
interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly entries?: Record<string, string | number>;
  readonly values?: readonly unknown[];
  readonly element?: z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object a schema finally validates: through optional, preprocess and pipe wrappers. */
function objectDef(schema: z.ZodType): Def | undefined {
  const def = defOf(schema);
  if (def.type === 'object') return def;
  if (def.type === 'pipe') return (def.out && objectDef(def.out)) ?? (def.in && objectDef(def.in));
  if (def.innerType) return objectDef(def.innerType);
  return undefined;
}

/** The element schema of a list schema (through wrappers), if the schema is a list. */
export function listElement(schema: z.ZodType): z.ZodType | undefined {
  const def = defOf(schema);
  if (def.type === 'array') return def.element;
  if (def.type === 'pipe') return (def.out && listElement(def.out)) ?? (def.in && listElement(def.in));
  if (def.innerType) return listElement(def.innerType);
  return undefined;
}

/** The fields of an object schema (or of the object inside a preprocess/pipe), in declaration order. */
export function outlineFields(schema: z.ZodType): FieldOutline[] {
  const def = objectDef(schema);
  if (!def?.shape) return [];
  return Object.entries(def.shape).map(([name, field]) => ({
    name,
    required: !field.safeParse(undefined).success,
    accepts: describe(field),
  }));
}

/** What a schema accepts, in a few words. */
function describe(schema: z.ZodType): string {
  const named = NAMED.get(schema);
  if (named) return named;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'readonly':
      return def.innerType ? describe(def.innerType) : def.type;
    case 'nullable':
      return def.innerType ? `${describe(def.innerType)} or null` : 'null';
    case 'enum':
      return `one of ${Object.values(def.entries ?? {}).map((v) => `\`${v}\``).join(', ')}`;
    case 'literal':
      return (def.values ?? []).map((v) => `\`${JSON.stringify(v)}\``).join(' or ');
    case 'array':
      return def.element ? `array of ${describe(def.element)}` : 'array';
    case 'object':
      return 'object';
    case 'union':
      return unique((def.options ?? []).map(describe)).join(' or ');
    case 'pipe':
      // Query values arrive as text; what counts is what the value must become.
      return def.out && defOf(def.out).type !== 'transform' ? describe(def.out) : def.in ? describe(def.in) : 'value';
    default:
      return def.type;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
