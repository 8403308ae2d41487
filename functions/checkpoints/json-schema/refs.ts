import type { RE2JS } from 're2js';
import { isPlainObject } from '../../json.ts';
import { SCHEMA_LIMITS } from './limits.ts';
import type { Charge } from './meter.ts';
import { linearPattern, patternProblem } from './re2.ts';

// The analysis: refs resolved within the schema, and the work one value of the answer can cost, bounded.

/** A problem with a schema; `message` starts with the path, so the role can be put before it. */
export interface Problem {
  path: string;
  message: string;
}

/** A subschema: what it applies to the same value, and what to the value's items or members. */
interface SchemaNode {
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

/**
 * The work a schema applies to an answer, or why it is unbounded. The subschemas that apply to one value form a
 * multiset (one subschema may apply several times, through `allOf` and refs); the multisets that apply to a value's
 * items and members follow from it — each value of an answer gets exactly one, found from its parent's and its own
 * name or index. The analysis walks every multiset reachable from the root (over-approximating which of
 * `patternProperties` may match) and counts how many values of an answer each can apply to: a bounded number, for
 * values reached by name (summed over every way to reach them), or any number, for items, members not named, and all
 * values under a cycle. A recursion that applies more subschemas at each level of the answer makes ever larger
 * multisets, and is refused when one passes the limits.
 */
function workProblem(nodes: Map<string, SchemaNode>): Problem | undefined {
  const node = (pointer: string) => nodes.get(pointer) as SchemaNode;
  let steps = 0;
  const refuse = (path: string, message: string) => ({ path, message: `${path} ${message}` });
  const tooComplex = () =>
    refuse(
      '',
      `is too complex to analyse (over ${SCHEMA_LIMITS.analysisSteps} steps); use fewer $refs applied to the same values`,
    );

  // Same-value edges must not cycle: checking a value would never end. Order the nodes so every edge goes forward.
  const order: string[] = [];
  const visit = new Map<string, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    if (visit.has(start)) continue;
    const path: Array<{ pointer: string; next: number }> = [{ pointer: start, next: 0 }];
    visit.set(start, 'open');
    while (path.length > 0) {
      const top = path[path.length - 1] as { pointer: string; next: number };
      const edges = node(top.pointer).same;
      if (top.next < edges.length) {
        const target = edges[top.next++] as string;
        if (visit.get(target) === 'open') {
          return refuse(
            top.pointer,
            `applies ${target === top.pointer ? 'itself' : `"#${target}"`} to the same value again and again through $ref (checking would never end): a recursion must go into an item or a member`,
          );
        }
        if (!visit.has(target)) {
          visit.set(target, 'open');
          path.push({ pointer: target, next: 0 });
        }
        continue;
      }
      visit.set(top.pointer, 'done');
      order.push(top.pointer);
      path.pop();
    }
  }
  const rank = new Map(order.map((pointer, index) => [pointer, index]));
  const forward = (pointer: string) => {
    let at = pointer;
    while (node(at).forwards) at = node(at).same[0] as string;
    return at;
  };

  /** Every subschema applying to a value, with how many times, given the multiset applied directly. */
  const closure = (applied: Map<string, number>): Map<string, number> => {
    const reached = new Set<string>();
    const pending = [...applied.keys()];
    for (let pointer = pending.pop(); pointer !== undefined; pointer = pending.pop()) {
      if (reached.has(pointer)) continue;
      reached.add(pointer);
      steps += 1;
      pending.push(...node(pointer).same);
    }
    // From the sources of the same-value edges on: a node's count is complete before it passes it on.
    const sorted = [...reached].sort((a, b) => (rank.get(b) as number) - (rank.get(a) as number));
    const counts = new Map(applied);
    for (const pointer of sorted) {
      const count = counts.get(pointer) ?? 0;
      for (const target of node(pointer).same) counts.set(target, (counts.get(target) ?? 0) + count);
      steps += node(pointer).same.length;
    }
    return counts;
  };

  const add = (multiset: Map<string, number>, pointer: string | undefined, count: number) => {
    if (pointer === undefined) return;
    const at = forward(pointer);
    multiset.set(at, (multiset.get(at) ?? 0) + count);
  };

  /** What applies to the members and items of a value to which `applying` applies; `many` when a value may hold any number of them. */
  type Child = { applied: Map<string, number>; keysOnly: boolean; many: boolean };
  const children = (applying: Map<string, number>): Child[] => {
    const result: Child[] = [];
    // Who names each member in its `properties`; and what applies to a member no `properties` names, from the
    // subschemas without `patternProperties` (the others are looked at name by name).
    const namedBy = new Map<string, Array<[string, number]>>();
    const unnamed = new Map<string, number>();
    let prefixLength = 0;
    for (const [pointer, count] of applying) {
      const schema = node(pointer);
      for (const name of schema.properties.keys()) {
        namedBy.set(name, [...(namedBy.get(name) ?? []), [pointer, count]]);
        steps += 1;
      }
      if (schema.patterns.length === 0)
        add(unnamed, schema.additionalProperties ?? schema.unevaluatedProperties, count);
      prefixLength = Math.max(prefixLength, schema.prefixItems.length);
    }
    const withPatterns = [...applying].filter(([pointer]) => node(pointer).patterns.length > 0);
    for (const [name, namers] of namedBy) {
      const applied = new Map(unnamed);
      steps += unnamed.size + namers.length;
      for (const [pointer, count] of namers) {
        const schema = node(pointer);
        add(applied, schema.properties.get(name), count);
        if (schema.patterns.length > 0) continue;
        // It names this member, so its fallback does not apply: take back what `unnamed` counted for it.
        const fallback = schema.additionalProperties ?? schema.unevaluatedProperties;
        if (fallback !== undefined) add(applied, fallback, -count);
      }
      for (const [pointer, count] of withPatterns) {
        const schema = node(pointer);
        let matched = false;
        for (const { regExp, target } of schema.patterns) {
          steps += 1;
          if (regExp?.test(name)) {
            matched = true;
            add(applied, target, count);
          }
        }
        if (!schema.properties.has(name) && !matched) {
          add(applied, schema.additionalProperties ?? schema.unevaluatedProperties, count);
        }
      }
      for (const [pointer, count] of applied) if (count === 0) applied.delete(pointer);
      result.push({ applied, keysOnly: false, many: false });
    }
    // Any other member: every pattern may match it, or none.
    const other = new Map<string, number>();
    const keys = new Map<string, number>();
    for (const [pointer, count] of applying) {
      const schema = node(pointer);
      for (const { target } of schema.patterns) add(other, target, count);
      add(other, schema.additionalProperties ?? schema.unevaluatedProperties, count);
      add(keys, schema.propertyNames, count);
    }
    result.push({ applied: other, keysOnly: false, many: true }, { applied: keys, keysOnly: true, many: true });
    // Items: each index below the longest `prefixItems`, then any other.
    for (let index = 0; index <= prefixLength; index++) {
      const applied = new Map<string, number>();
      for (const [pointer, count] of applying) {
        const schema = node(pointer);
        const positional = index < schema.prefixItems.length ? schema.prefixItems[index] : undefined;
        add(applied, positional ?? schema.items ?? schema.unevaluatedItems, count);
        add(applied, schema.contains, count);
      }
      result.push({ applied, keysOnly: false, many: index === prefixLength });
    }
    return result;
  };

  // The multisets found, each with its work and the edges to its children's.
  const states: Array<{ work: number; at: string; edges: Array<{ to: number; many: boolean }> }> = [];
  const index = new Map<string, number>();
  const queue: Array<Child & { from?: number }> = [
    { applied: new Map([[forward(''), 1]]), keysOnly: false, many: false },
  ];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const { applied, keysOnly, many, from } = next;
    if (applied.size === 0) continue;
    const key = `${keysOnly ? 'k' : 'v'}${[...applied].sort(([a], [b]) => (a < b ? -1 : 1)).join(';')}`;
    let known = index.get(key);
    if (known === undefined) {
      if (steps > SCHEMA_LIMITS.analysisSteps) return tooComplex();
      const applying = closure(applied);
      let work = 0;
      for (const [pointer, count] of applying) work += count * node(pointer).own;
      const at = [...applied.keys()][0] as string;
      const limit = many ? SCHEMA_LIMITS.workPerRepeatedValue : SCHEMA_LIMITS.namedWork;
      if (work > limit) return tooMuchWork(at, work, many);
      known = states.length;
      states.push({ work, at, edges: [] });
      index.set(key, known);
      if (!keysOnly) for (const child of children(applying)) queue.push({ ...child, from: known });
    }
    if (from !== undefined) (states[from] as (typeof states)[number]).edges.push({ to: known, many });
  }

  // How many values each multiset may apply to: the root one; along a `many` edge or a cycle, any number.
  const inDegree = new Array<number>(states.length).fill(0);
  for (const state of states) for (const edge of state.edges) inDegree[edge.to] = (inDegree[edge.to] ?? 0) + 1;
  const reach = new Array<number>(states.length).fill(0);
  reach[0] = 1;
  const finished = new Array<boolean>(states.length).fill(false);
  // A root inside a cycle applies to any number of values, and so does everything after it.
  const ready = inDegree[0] === 0 ? [0] : [];
  for (let at = ready.pop(); at !== undefined; at = ready.pop()) {
    finished[at] = true;
    for (const edge of (states[at] as (typeof states)[number]).edges) {
      reach[edge.to] = edge.many ? Number.POSITIVE_INFINITY : (reach[edge.to] ?? 0) + (reach[at] ?? 0);
      inDegree[edge.to] = (inDegree[edge.to] ?? 0) - 1;
      if (inDegree[edge.to] === 0) ready.push(edge.to);
    }
  }
  let namedWork = 0;
  let heaviest = { at: '', cost: 0 };
  for (const [at, state] of states.entries()) {
    const count = finished[at] ? (reach[at] as number) : Number.POSITIVE_INFINITY;
    if (count === Number.POSITIVE_INFINITY) {
      if (state.work > SCHEMA_LIMITS.workPerRepeatedValue) return tooMuchWork(state.at, state.work, true);
      continue;
    }
    namedWork += count * state.work;
    if (count * state.work > heaviest.cost) heaviest = { at: state.at, cost: count * state.work };
  }
  if (namedWork > SCHEMA_LIMITS.namedWork) {
    return refuse(
      heaviest.at,
      `applies the most of the ${namedWork > 1e15 ? 'over 10^15' : namedWork} units of work the schema would apply to the values an answer holds by name (the root, named members, prefixItems), over the limit of ${SCHEMA_LIMITS.namedWork}: $refs apply the same subschemas to them many times over`,
    );
  }
  return undefined;
}

function tooMuchWork(at: string, work: number, repeated: boolean): Problem {
  const amount = work > 1e15 ? 'over 10^15' : String(work);
  const message = repeated
    ? `would apply ${amount} units of work to each of any number of values of an answer (items, members no "properties" names, or values under a recursion), over the limit of ${SCHEMA_LIMITS.workPerRepeatedValue} per value`
    : `would apply ${amount} units of work to one value of an answer, over the limit of ${SCHEMA_LIMITS.namedWork}: $refs apply the same subschemas to it many times over, or a recursion applies more of them at each level`;
  return { path: at, message: `${at} ${message}` };
}
