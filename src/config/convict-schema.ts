import convict from 'convict';
import { keyEntries, isConfigKey, type ConfigKey, type KeyTree, type ValueKind } from './key.ts';

/**
 * convict's view of the key tree: doc, format, default, env and sensitive per key. convict
 * supplies the defaults, merges the layers and reports undeclared keys; each key's format
 * checks the value with the key's own zod schema, so a wrong type is caught by convict
 * first and the whole-object zod schema then adds the rules that span keys.
 */

// Object keys must use convict's built-in Object format: its merge treats only that
// format as a leaf whose members are free-form (strategies.settings.<name>.<field>).
const FORMAT_OF_KIND: Record<ValueKind, string> = {
  string: 'stratd-string',
  int: 'stratd-int',
  number: 'stratd-number',
  boolean: 'stratd-boolean',
  list: 'stratd-list',
  'integer-string': 'stratd-integer-string',
  object: 'Object',
};

const leafByPath = new Map<string, ConfigKey>();
let formatsRegistered = false;

function registerFormats(): void {
  if (formatsRegistered) return;
  formatsRegistered = true;
  for (const format of new Set(Object.values(FORMAT_OF_KIND))) {
    if (format === 'Object') continue;
    convict.addFormat({
      name: format,
      validate(value: unknown, schemaItem: convict.SchemaObj) {
        // convict hands each format the key's schema entry, which carries our configPath.
        const leaf = leafByPath.get(String((schemaItem as { configPath?: unknown }).configPath));
        if (!leaf) return;
        const result = leaf.schema.safeParse(value);
        if (!result.success) throw new TypeError(result.error.issues[0]?.message ?? 'invalid value');
      },
    });
  }
}

type ConvictSchema = convict.Schema<Record<string, unknown>>;

/** The convict schema of a key tree. */
export function convictSchemaOf(tree: KeyTree): ConvictSchema {
  registerFormats();
  for (const { path, key } of keyEntries(tree)) leafByPath.set(path, key);
  return nodeOf(tree, '') as ConvictSchema;
}

function nodeOf(tree: KeyTree, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (!isConfigKey(node)) {
      out[name] = nodeOf(node, path);
      continue;
    }
    out[name] = {
      doc: node.doc,
      format: FORMAT_OF_KIND[node.kind],
      default: structuredClone(node.default),
      ...(node.env ? { env: node.env } : {}),
      ...(node.sensitive ? { sensitive: true } : {}),
      configPath: path,
    };
  }
  return out;
}
