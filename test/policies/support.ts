import { readFileSync } from 'node:fs';
import { loadCedar } from '../../functions/policies/cedar.ts';
import { createPolicyEngine, type PolicyEngine, type PolicyEngineOptions } from '../../functions/policies/engine.ts';
import { type LoadedPolicies, loadPolicies } from '../../functions/policies/load.ts';
import type { PolicyRequest } from '../../functions/policies/request.ts';

/** Cedar itself, the real WebAssembly, once per test file. */
export const cedar = loadCedar();

/** Handback's own schema, as shipped. */
export const SHIPPED = { file: 'handback.cedarschema', text: readFileSync('handback.cedarschema', 'utf8') };

/** A deployment's `Args`: the arguments the tests' tools take. */
export const ARGS_SCHEMA = `// The arguments of our tools.
namespace Handback {
  type Money = decimal;
  type Args = {
    amount?: Long,
    total?: Money,
    note?: String,
    tags?: Set<String>,
    item?: { sku?: String, qty?: Long },
  };
}
`;

/** Loads `text` (as policies.cedar) against the shipped schema and `schema` (as args.cedarschema; null: none). */
export function load(text: string, schema: string | null = ARGS_SCHEMA): LoadedPolicies {
  return loadPolicies(
    cedar,
    { file: 'policies.cedar', text },
    SHIPPED,
    schema === null ? undefined : { file: 'args.cedarschema', text: schema },
  );
}

/** The version the tests' engines name their set with (a deployment's `HANDBACK_POLICY_VERSION`). */
export const VERSION = 'test-1';

/** An engine over `text`, its version `VERSION` unless `options` says otherwise. */
export function engineOf(
  text: string,
  options: PolicyEngineOptions = {},
  schema: string | null = ARGS_SCHEMA,
): PolicyEngine {
  return createPolicyEngine(cedar, load(text, schema), { version: VERSION, ...options });
}

/** A request for `tool` with `args`, by an agent of the group `bots` unless told otherwise. */
export function request(tool: string, args: unknown, principal?: PolicyRequest['principal']): PolicyRequest {
  return {
    principal: principal ?? { kind: 'agent', subject: 'agent-7', groups: ['bots'] },
    tool,
    args,
    runId: 'run-1',
    tenant: 'acme',
    format: 'anthropic',
    now: NOW,
  };
}

/** The clock the requests are judged at: Monday 3 March 2025, 10:00 UTC. */
export const NOW = new Date('2025-03-03T10:00:00.000Z');
