import type { RE2JS } from 're2js';
import { isPlainObject } from '../../json.ts';
import type { Charge } from './meter.ts';
import { linearPattern, patternProblem } from './re2.ts';
import { workProblem } from './work.ts';

// The analysis: refs resolved within the schema, and the work one value of the answer can cost, bounded.

/** A problem with a schema; `message` starts with the path, so the role can be put before it. */
export interface Problem {
  path: string;
  message: string;
}

/** A subschema: what it applies to the same value, and what to the value's items or members. */
export interface SchemaNode {
  /** Work of applying this subschema alone to one value. */
  own: number;
  /** Subschemas applied to the same value (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, …, refs). */
  same: string[];
  refs: Array<{ keyword: '$ref' | '$dynamicRef'; value: string }>;
  properties: Map<string, string>;
  patterns: Array<{ regExp: RE2JS | undefined; target: string }>;
  additionalProperties?: string;
  unevaluatedProperties?: string;
  propertyNames?: string;
  prefixItems: string[];
  items?: string;
  contains?: string;
  unevaluatedItems?: string;
  /** Only a `$ref` (and annotations): the same as its target. */
  forwards: boolean;
  /** What it charges the meter (objects only). */
  charge?: Charge;
}

const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_VALUE_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
// `dependencies` is draft-07's, but ajv's 2020 instance still applies it.
const SAME_VALUE_MAP = ['dependentSchemas', 'dependencies'] as const;
const DEFINITIONS = ['$defs', 'definitions'] as const;
const ANNOTATIONS = new Set(['$ref', 'title', 'description', '$comment', 'default', 'examples', 'deprecated']);
const VOCABULARIES_2020 = new Set(
  [
    'core',
    'applicator',
    'unevaluated',
    'validation',
    'meta-data',
    'format-annotation',
    'format-assertion',
    'content',
  ].map((name) => `https://json-schema.org/draft/2020-12/vocab/${name}`),
);
const LIST_WORK = new Set(['required', 'allOf', 'anyOf', 'oneOf', 'prefixItems']);
// Keywords whose work grows with the value: the string's length, the array's items, the object's members.
const STRING_LOOPS = ['minLength', 'maxLength', 'pattern'] as const;
const ARRAY_LOOPS = ['items', 'prefixItems', 'contains', 'unevaluatedItems', 'uniqueItems'] as const;
const OBJECT_LOOPS = [
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
] as const;
const MAP_WORK = new Set(['properties', 'patternProperties', 'dependentSchemas', 'dependentRequired', 'dependencies']);

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** What the analysis of a schema learned: by JSON pointer, what each subschema object charges the meter. */
export interface Analysis {
  charges: Map<string, Charge>;
}

/**
 * Problems of a schema the meta-schema accepted — keywords ajv handles unlike 2020-12, refs that do not resolve
 * within the schema, patterns, and unbounded work — or, when it has none, what its subschemas charge.
 */
export function analyse(root: Record<string, unknown>): Analysis | { problems: Problem[] } {
  const problems: Problem[] = [];
  const nodes = new Map<string, SchemaNode>();
  const anchors = new Map<string, string>();
  const dynamicAnchors = new Map<string, string[]>();
  const problem = (path: string, message: string) => problems.push({ path, message: `${path} ${message}` });

  // Walk every place that holds a schema; nothing else (an `enum` value is not a schema).
  const stack: Array<{ schema: unknown; pointer: string }> = [{ schema: root, pointer: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { schema, pointer } = next;
    const node: SchemaNode = {
      own: 1,
      same: [],
      refs: [],
      properties: new Map(),
      patterns: [],
      prefixItems: [],
      forwards: false,
    };
    nodes.set(pointer, node);
    if (!isPlainObject(schema)) continue;
    // The pointer of a subschema to walk, or undefined where the value is no schema (only ajv's keywords outside
    // 2020-12, such as `dependencies`, are not checked by the meta-schema).
    const child = (value: unknown, ...tokens: string[]): string | undefined => {
      if (typeof value !== 'boolean' && !isPlainObject(value)) return undefined;
      const at = `${pointer}/${tokens.map(escapeToken).join('/')}`;
      stack.push({ schema: value, pointer: at });
      return at;
    };
    const applies = (list: string[], at: string | undefined) => {
      if (at !== undefined) list.push(at);
    };
    node.forwards = typeof schema.$ref === 'string' && Object.keys(schema).every((key) => ANNOTATIONS.has(key));
    for (const [keyword, value] of Object.entries(schema)) {
      node.own += 1;
      if (LIST_WORK.has(keyword) && Array.isArray(value)) node.own += value.length;
      if (MAP_WORK.has(keyword) && isPlainObject(value)) node.own += Object.keys(value).length;
    }
    const present = (keywords: readonly string[]) => keywords.filter((keyword) => schema[keyword] !== undefined).length;
    node.charge = [
      node.own,
      present(STRING_LOOPS),
      present(ARRAY_LOOPS),
      present(OBJECT_LOOPS),
      isPlainObject(schema.patternProperties) ? Object.keys(schema.patternProperties).length : 0,
    ];

    if (schema.$async !== undefined) {
      problem(`${pointer}/$async`, 'is not supported: ajv would check asynchronously, and pass every answer');
    }
    for (const keyword of ['$recursiveRef', '$recursiveAnchor']) {
      if (schema[keyword] !== undefined) {
        problem(`${pointer}/${keyword}`, 'is a 2019-09 keyword; use $dynamicRef and $dynamicAnchor');
      }
    }
    if (pointer !== '' && schema.$id !== undefined) {
      problem(
        `${pointer}/$id`,
        'embeds a schema resource, which is not supported here; put the subschema in $defs and $ref it by "#/$defs/…" or an $anchor',
      );
    }
    if (isPlainObject(schema.$vocabulary)) {
      for (const [uri, required] of Object.entries(schema.$vocabulary)) {
        if (required === true && !VOCABULARIES_2020.has(uri)) {
          problem(`${pointer}/$vocabulary`, `requires the vocabulary ${JSON.stringify(uri)}, which is not known here`);
        }
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor'] as const) {
      const name = schema[keyword];
      if (typeof name !== 'string') continue;
      if (anchors.has(name) && anchors.get(name) !== pointer) {
        problem(`${pointer}/${keyword}`, `declares the anchor ${JSON.stringify(name)} a second time`);
      }
      anchors.set(name, pointer);
      if (keyword === '$dynamicAnchor') dynamicAnchors.set(name, [...(dynamicAnchors.get(name) ?? []), pointer]);
    }
    if (typeof schema.$ref === 'string') node.refs.push({ keyword: '$ref', value: schema.$ref });
    if (typeof schema.$dynamicRef === 'string') node.refs.push({ keyword: '$dynamicRef', value: schema.$dynamicRef });
    if (typeof schema.pattern === 'string') {
      const why = patternProblem(schema.pattern);
      if (why) problem(`${pointer}/pattern`, `${JSON.stringify(schema.pattern)} ${why}`);
    }

    for (const keyword of SAME_VALUE_ONE) {
      applies(node.same, child(schema[keyword], keyword));
    }
    for (const keyword of SAME_VALUE_LIST) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (const [index, item] of list.entries()) applies(node.same, child(item, keyword, String(index)));
    }
    for (const keyword of SAME_VALUE_MAP) {
      const map = schema[keyword];
      if (!isPlainObject(map)) continue;
      for (const [name, value] of Object.entries(map)) {
        applies(node.same, child(value, keyword, name));
      }
    }
    for (const keyword of DEFINITIONS) {
      const map = schema[keyword];
      if (isPlainObject(map)) for (const [name, value] of Object.entries(map)) child(value, keyword, name);
    }
    if (isPlainObject(schema.properties)) {
      for (const [name, value] of Object.entries(schema.properties)) {
        if (name === '__proto__') {
          // ajv drops this entry from `properties` without a word: an answer's "__proto__" would go unchecked.
          problem(`${pointer}/properties/__proto__`, 'names the property "__proto__", which cannot be checked here');
          continue;
        }
        const at = child(value, 'properties', name);
        if (at !== undefined) node.properties.set(name, at);
      }
    }
    if (isPlainObject(schema.patternProperties)) {
      for (const [source, value] of Object.entries(schema.patternProperties)) {
        const target = child(value, 'patternProperties', source);
        const compiled = linearPattern(source);
        if ('problem' in compiled) {
          problem(
            `${pointer}/patternProperties/${escapeToken(source)}`,
            `${JSON.stringify(source)} ${compiled.problem}`,
          );
        }
        if (target !== undefined) {
          node.patterns.push({ regExp: 'regExp' in compiled ? compiled.regExp : undefined, target });
        }
      }
    }
    if (Array.isArray(schema.prefixItems)) {
      for (const [index, item] of schema.prefixItems.entries()) {
        applies(node.prefixItems, child(item, 'prefixItems', String(index)));
      }
    }
    const single = (keyword: string) => child(schema[keyword], keyword);
    node.additionalProperties = single('additionalProperties');
    node.unevaluatedProperties = single('unevaluatedProperties');
    node.propertyNames = single('propertyNames');
    node.items = single('items');
    node.contains = single('contains');
    node.unevaluatedItems = single('unevaluatedItems');
  }
  if (problems.length > 0) return { problems };

  // Refs: only within the schema, by JSON pointer or anchor.
  const rootId = typeof root.$id === 'string' ? absoluteUrl(root.$id) : undefined;
  const resolve = (ref: string): string | undefined => {
    let fragment: string;
    if (ref.startsWith('#')) fragment = ref.slice(1);
    else {
      if (rootId === undefined) return undefined;
      const url = absoluteUrl(ref, rootId);
      if (url === undefined || withoutFragment(url) !== withoutFragment(rootId)) return undefined;
      fragment = url.includes('#') ? url.slice(url.indexOf('#') + 1) : '';
    }
    if (fragment === '') return '';
    if (!fragment.startsWith('/')) return anchors.get(fragment);
    try {
      return decodeURIComponent(fragment);
    } catch {
      return undefined;
    }
  };
  for (const [pointer, node] of nodes) {
    for (const { keyword, value } of node.refs) {
      // The path is the subschema's (as ajv names a ref it cannot resolve); the message names the keyword.
      const at = (message: string) =>
        problems.push({ path: pointer, message: `${pointer}/${keyword} ${JSON.stringify(value)} ${message}` });
      if (keyword === '$dynamicRef') {
        const name = value.slice(1);
        if (!value.startsWith('#') || root.$dynamicAnchor !== name) {
          at(`must name a $dynamicAnchor of the schema's root ("#name"); other dynamic references are not supported`);
          continue;
        }
        // Whichever anchor of that name the dynamic scope picks, it is one of these.
        node.same.push('', ...(dynamicAnchors.get(name) ?? []).filter((target) => target !== ''));
        continue;
      }
      const target = resolve(value);
      if (target === undefined) {
        at(
          'does not resolve within the schema; a schema must be self-contained: refer to its own parts by "#/$defs/…" or "#anchor"',
        );
      } else if (!nodes.has(target)) {
        at('does not point to a subschema');
      } else {
        node.same.push(target);
      }
    }
  }
  if (problems.length > 0) return { problems };
  const unbounded = workProblem(nodes);
  if (unbounded) return { problems: [unbounded] };
  const charges = new Map<string, Charge>();
  for (const [pointer, { charge }] of nodes) if (charge) charges.set(pointer, charge);
  return { charges };
}

function absoluteUrl(reference: string, base?: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
