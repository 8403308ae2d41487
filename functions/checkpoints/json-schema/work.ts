import { SCHEMA_LIMITS } from './limits.ts';
import type { Problem, SchemaNode } from './refs.ts';

// The work a schema's subschemas apply to the values of an answer, and the bound on it (the analysis is refs.ts's).

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
export function workProblem(nodes: Map<string, SchemaNode>): Problem | undefined {
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
