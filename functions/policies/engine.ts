import { CEDAR_NAMES, type PolicyDefault, type PolicyMode } from '../vocabulary.ts';
import type { AskPolicy } from '../wire.ts';
import type { AuthorizationAnswer, Cedar } from './cedar.ts';
import type { LoadedPolicies, LoadedPolicy } from './load.ts';
import { errorReason, type PolicyAnswer, verdictOf } from './outcomes.ts';
import type { PolicyEngine, PolicyRequest } from './port.ts';
import { ArgsError, contextOf, entitiesOf, principalUid } from './request.ts';
import { policyVersion } from './version.ts';

/**
 * The policy engine: one loaded policy set and schema, preparsed once in Cedar, evaluating each `approval` ask's two
 * requests (`call`, `callWithoutApproval`) and combining Cedar's answers into §17's outcome, named by the set's
 * version (§19).
 */

/** What an engine is built with. */
export interface PolicyEngineOptions {
  /** `enforce` (the default) or `shadow`. */
  mode?: PolicyMode;
  /** What an ask no policy applies to gets. @default 'ask' */
  default?: PolicyDefault;
  /** Told of every failed evaluation (fail closed), with the erroring policies' ids: the deployment logs it. */
  onError?: (failure: EvaluationFailure) => void;
  /** The IANA time zone of `context.clock` (§19). @default 'UTC' */
  timeZone?: string;
  /** The set's version as the deployment names it (§19). @default the files' hash (`policyVersion`) */
  version?: string;
}

/** A failed evaluation, as logged. */
export interface EvaluationFailure {
  tool: string;
  runId: string;
  tenant: string;
  /** The erroring policies' ids (none when the request itself did not fit the schema). */
  policyIds: string[];
  message: string;
}

export type { PolicyEngine } from './port.ts';

let engines = 0;

/** An engine over `loaded`, its policy set and schema preparsed in `cedar` under names of their own. */
export function createPolicyEngine(
  cedar: Cedar,
  loaded: LoadedPolicies,
  options: PolicyEngineOptions = {},
): PolicyEngine {
  const name = `handback-${++engines}`;
  const schema = cedar.preparseSchema(name, loaded.schema);
  if (schema.type === 'failure') throw new Error(`Cedar refused the checked schema: ${schema.errors[0]?.message}`);
  const policies = [...loaded.policies.values()];
  const order = new Map(policies.map((policy, index) => [policy.id, index]));
  const mode = options.mode ?? 'enforce';
  const fallback = options.default ?? 'ask';
  const timeZone = options.timeZone ?? 'UTC';
  const version = options.version ?? policyVersion(loaded.sources, mode, fallback);
  const summaries = policies.map(({ id, effect, annotations, text }) => ({ id, effect, annotations, text }));

  // Each request is evaluated against the policies whose scope may name its action and tool, preparsed once per such
  // group: a policy scoped to other actions or another tool is never satisfied and never errs on it, and Cedar's cost
  // per request grows with the policies it is given. A tool no policy names shares the group of the policies that
  // name none. No policy: no Cedar call.
  const groups = new Map<string, string | undefined>();
  // The policies by the tool their scope names, and those that name none, each in the file's order: a request reads
  // the two lists of its tool, not every policy.
  const anyTool: LoadedPolicy[] = [];
  const byTool = new Map<string, LoadedPolicy[]>();
  for (const policy of policies) {
    if (policy.tools === undefined) anyTool.push(policy);
    else {
      for (const tool of new Set(policy.tools)) {
        const named = byTool.get(tool);
        if (named === undefined) byTool.set(tool, [policy]);
        else named.push(policy);
      }
    }
  }
  const groupOf = (action: string, tool: string): string | undefined => {
    const ids = inFileOrderOf(anyTool, byTool.get(tool) ?? [], order)
      .filter((policy) => policy.actions === undefined || policy.actions.includes(action))
      .map((policy) => policy.id);
    const key = ids.join('\n');
    if (groups.has(key)) return groups.get(key);
    let group: string | undefined;
    if (ids.length > 0) {
      group = `${name}-${groups.size}`;
      const staticPolicies = Object.fromEntries(ids.map((id) => [id, loaded.policies.get(id)?.text as string]));
      const preparsed = cedar.preparsePolicySet(group, { staticPolicies });
      if (preparsed.type === 'failure') {
        throw new Error(`Cedar refused the checked policies: ${preparsed.errors[0]?.message}`);
      }
    }
    groups.set(key, group);
    return group;
  };

  const authorize = (
    action: string,
    request: PolicyRequest,
    context: Record<string, unknown>,
    entities: ReturnType<typeof entitiesOf>,
  ): PolicyAnswer => {
    const group = groupOf(action, request.tool);
    if (group === undefined) return { kind: 'deny', policyIds: [], errors: [] };
    const answer: AuthorizationAnswer = cedar.statefulIsAuthorized({
      principal: principalUid(request.principal),
      action: { type: CEDAR_NAMES.action, id: action },
      resource: { type: CEDAR_NAMES.tool, id: request.tool },
      context: context as never,
      entities,
      preparsedPolicySetId: group,
      preparsedSchemaName: name,
      // The context was checked against the schema as it was built (request.ts): Cedar's own check of the same
      // request costs it several times its evaluation.
      validateRequest: false,
    });
    if (answer.type === 'failure') {
      return { kind: 'failure', message: answer.errors.map((error) => error.message).join('; ') };
    }
    const { decision, diagnostics } = answer.response;
    return {
      kind: decision,
      policyIds: inFileOrder(diagnostics.reason, order),
      errors: diagnostics.errors.map((error) => ({ policyId: error.policyId, message: error.error.message })),
    };
  };

  return {
    mode,
    default: fallback,
    size: loaded.policies.size,
    version,
    timeZone,
    policies: summaries,
    ladderOf(policyIds) {
      for (const id of policyIds) {
        const ladder = loaded.policies.get(id)?.escalate;
        if (ladder !== undefined) return ladder;
      }
      return undefined;
    },
    evaluate(request) {
      let context: Record<string, unknown>;
      try {
        context = contextOf(request, loaded.schemaJson, timeZone);
      } catch (error) {
        if (!(error instanceof ArgsError)) throw error;
        return { ...failed(request, [], error.message, options.onError), version };
      }
      const entities = entitiesOf(request);
      const verdict = verdictOf(
        () => authorize(CEDAR_NAMES.call, request, context, entities),
        () => authorize(CEDAR_NAMES.callWithoutApproval, request, context, entities),
        loaded.policies,
        fallback,
      );
      if (verdict.basis === 'error') {
        options.onError?.({
          tool: request.tool,
          runId: request.runId,
          tenant: request.tenant,
          policyIds: verdict.policyIds,
          message: verdict.reason ?? 'the evaluation failed',
        });
      }
      return { ...verdict, version };
    },
  };
}

function failed(
  request: PolicyRequest,
  policyIds: string[],
  message: string,
  onError: PolicyEngineOptions['onError'],
): AskPolicy {
  onError?.({ tool: request.tool, runId: request.runId, tenant: request.tenant, policyIds, message });
  return { outcome: 'reject', policyIds, basis: 'error', reason: errorReason(message) };
}

/** Two lists of policies, each in the file's order, as one in the file's order. */
function inFileOrderOf(
  a: readonly LoadedPolicy[],
  b: readonly LoadedPolicy[],
  order: ReadonlyMap<string, number>,
): LoadedPolicy[] {
  const merged: LoadedPolicy[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && (order.get(x.id) ?? 0) < (order.get(y.id) ?? 0))) {
      merged.push(x as LoadedPolicy);
      i++;
    } else {
      merged.push(y);
      j++;
    }
  }
  return merged;
}

function inFileOrder(ids: readonly string[], order: ReadonlyMap<string, number>): string[] {
  return [...ids].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}
