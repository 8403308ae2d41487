import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };
import { PATH_PATTERNS, ROUTES } from '../../functions/handlers/routes.ts';
import type { HandoffClaims } from '../../functions/handoff/claims.ts';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { approvalTranscript } from '../../functions/testing/index.ts';
import * as z from '../../functions/zod.ts';
import { FIELD_TABLES, tableFields, withFieldTables } from '../../scripts/field-tables.ts';
import { componentSchemas, httpApiDocText } from '../../scripts/openapi.ts';
import { engineOf } from '../policies/support.ts';
import { httpEvent, lambdaContext, pauseBody } from './events.ts';
import { testTelemetry } from './telemetry.ts';

/**
 * The API description cannot drift from the service. Every field the route table's schemas accept is in the document
 * (params, query, bodies); and a walk through the API — a pause with every field, its views with messages and slices,
 * a listing and its cursor, votes of a quorum, a continuation in slices, a cancel, links, refusals — sends requests the
 * document describes key for key, and gets answers the document describes key for key, each valid against the
 * schema of its operation and status. A field added to what the service sends or takes, and not to the schemas the
 * document is written from, fails here.
 */

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Schema>>; components: Record<string, Record<string, Schema>> };
const doc = openapi as unknown as Doc;

/** The schema a `$ref` of the document names. */
function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === 'string') {
    const [, group, name] = /^#\/components\/(\w+)\/(\w+)$/.exec(current.$ref) ?? [];
    current = doc.components[group as string]?.[name as string] as Schema;
    if (current === undefined) throw new Error(`Unresolved ${String(schema.$ref)}`);
  }
  return current;
}

/** The branches of a schema: itself, or those of its `anyOf`/`oneOf`/`allOf`, resolved. */
function branches(schema: Schema): Schema[] {
  const resolved = resolve(schema);
  const parts = [
    ...((resolved.anyOf as Schema[] | undefined) ?? []),
    ...((resolved.oneOf as Schema[] | undefined) ?? []),
    ...((resolved.allOf as Schema[] | undefined) ?? []),
  ];
  return parts.length === 0 ? [resolved] : parts.flatMap(branches);
}

/**
 * The JSON pointers of every key of `value` the schema does not name (where it names properties; a record or `{}`
 * takes any key).
 */
function undocumented(value: unknown, schema: Schema, at = ''): string[] {
  if (Array.isArray(value)) {
    const items = branches(schema).flatMap((branch) => (branch.items === undefined ? [] : [branch.items as Schema]));
    if (items.length === 0) return [];
    return value.flatMap((item, index) => undocumented(item, { anyOf: items }, `${at}/${index}`));
  }
  if (typeof value !== 'object' || value === null) return [];
  const objects = branches(schema);
  if (objects.some((branch) => branch.properties === undefined)) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const named = objects.flatMap((branch) => {
      const property = (branch.properties as Record<string, Schema>)[key];
      return property === undefined ? [] : [property];
    });
    return named.length === 0 ? [`${at}/${key}`] : undocumented(item, { anyOf: named }, `${at}/${key}`);
  });
}

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'openapi.json', components: doc.components });
const validate = (schema: Schema, value: unknown) => {
  const check =
    typeof schema.$ref === 'string' ? ajv.getSchema(`openapi.json${schema.$ref}`) : ajv.compile(schema as object);
  if (check === undefined) throw new Error(`Unresolved ${String(schema.$ref)}`);
  return check(value) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
};

/** The document's operation for a request: its path template by the route table's patterns, and method. */
function operationOf(method: string, path: string): { template: string; operation: Schema } {
  const route = ROUTES.find((candidate) => candidate.method === method && PATH_PATTERNS[candidate.id].test(path));
  if (route === undefined) throw new Error(`No route ${method} ${path}`);
  const operation = doc.paths[route.path]?.[method.toLowerCase()];
  if (operation === undefined) throw new Error(`The document has no ${method} ${route.path}`);
  return { template: route.path, operation };
}

/** What the walk found the document not to say. */
const findings: string[] = [];
/** The operations and statuses the walk saw. */
const seen = new Set<string>();

const links = createAnswerLinks(new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!'));
/** Hand-off claims in memory (§18): the first claimant of a pause holds it. */
const claimed = new Map<string, { claimant: string; claimedAt: string }>();
const claims: HandoffClaims = {
  async claim({ tenant, runId, interruptId, claimant }) {
    const key = `${tenant}/${runId}/${interruptId}`;
    const holder = claimed.get(key) ?? { claimant, claimedAt: new Date().toISOString() };
    claimed.set(key, holder);
    return { runId, interruptId, claimed: holder.claimant === claimant, ...holder };
  },
};
const handler = createApiHandler({
  store: createMemoryCheckpointStore(),
  handoff: { deliver: async () => {} },
  claims,
  links,
  inboxUrl: 'https://h.example/inbox',
  channels: ['slack', 'email'],
  ...testTelemetry(),
});

/** The same API where the deployment's policies judge each approval ask (§17), enforced and in shadow mode. */
const POLICIES = `
@id("refunds-small")
permit(principal, action == Handback::Action::"callWithoutApproval", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount <= 100 };

@id("finance-large")
@approvers("group:finance")
@approvals("2")
@fourEyes("true")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 100 };
`;
const withPolicies = (mode: 'enforce' | 'shadow') => {
  const engine = engineOf(POLICIES, { mode });
  return createApiHandler({
    store: createMemoryCheckpointStore({ policies: async () => engine }),
    handoff: { deliver: async () => {} },
    ...testTelemetry(),
  });
};
const handlers = { plain: handler, enforce: withPolicies('enforce'), shadow: withPolicies('shadow') };

const people = {
  ann: { tenant: 'acme', sub: 'ann', email: 'ann@example.com', email_verified: 'true', name: 'Ann' },
  bob: { tenant: 'acme', sub: 'bob', email: 'bob@example.com', email_verified: 'true' },
  cyd: { tenant: 'acme', sub: 'cyd', scope: 'handback/decide' },
  agent: { tenant: 'acme', sub: 'agent-1', scope: 'handback/agent' },
} as const;

/**
 * One request through the API handler, held to the document: the body it sends and the body it gets, key for key;
 * the answer valid against its operation's schema for its status.
 */
async function call(
  method: string,
  pathAndQuery: string,
  options: {
    as?: keyof typeof people;
    body?: unknown;
    headers?: Record<string, string>;
    link?: string;
    api?: keyof typeof handlers;
  } = {},
) {
  const path = new URL(pathAndQuery, 'https://h.example').pathname;
  const { template, operation } = operationOf(method, path);
  const headers = { ...options.headers, ...(options.link === undefined ? {} : { 'x-handback-link': options.link }) };
  const event = httpEvent(method, pathAndQuery, {
    ...(options.body === undefined ? {} : { body: options.body }),
    claims: options.link === undefined ? people[options.as ?? 'ann'] : null,
    headers,
  });
  if (options.body !== undefined) {
    const content = (operation.requestBody as { content: Record<string, { schema: Schema }> }).content;
    const schema = content['application/json']?.schema as Schema;
    for (const key of undocumented(options.body, schema)) findings.push(`${method} ${template} sends ${key}`);
  }
  const result = await handlers[options.api ?? 'plain'](event, lambdaContext());
  const status = result.statusCode ?? 0;
  const body = JSON.parse(String(result.body)) as Record<string, unknown>;
  seen.add(`${method} ${template} ${status}`);
  const response = (operation.responses as Record<string, Schema>)[String(status)];
  if (response === undefined) {
    findings.push(`${method} ${template} answers ${status}, which the document does not list`);
    return { status, body };
  }
  const content = resolve(response).content as Record<string, { schema: Schema }>;
  const schema = (content['application/json'] ?? content['application/problem+json'])?.schema as Schema;
  for (const key of undocumented(body, schema)) findings.push(`${method} ${template} ${status} answers ${key}`);
  for (const error of validate(schema, body)) findings.push(`${method} ${template} ${status}: ${error}`);
  return { status, body };
}

/** Walks the API as a deployment with every feature would be used. */
async function walk(): Promise<void> {
  const messages = approvalTranscript();
  const pause = {
    format: 'openai-chat',
    messages,
    asks: [
      {
        toolCallId: 'call_ask',
        kind: 'answer',
        prompt: 'Full or partial?',
        answerSchema: { enum: ['full', 'partial'] },
      },
      {
        toolCallId: 'call_refund',
        kind: 'approval',
        prompt: 'Refund EUR 120?',
        argsSchema: { type: 'object' },
        editable: true,
        approvers: { subjects: ['bob', 'cyd'], emails: ['bob@example.com'], groups: ['finance'] },
        approvals: 2,
      },
      { toolCallId: 'call_email', kind: 'approval', prompt: 'Send it?' },
    ],
    expiresInSeconds: 3600,
    onExpiry: 'reject',
    remindBeforeSeconds: 600,
    metadata: { ticket: 'SUP-7' },
    notify: [
      { channel: 'slack', to: 'C0123456789' },
      { channel: 'email', to: 'ops@example.com' },
    ],
    fourEyes: true,
  };
  const made = await call('POST', '/runs/drift-1/pauses', {
    body: pause,
    headers: { 'Idempotency-Key': 'drift-1' },
  });
  expect(made.status).toBe(201);
  const id = made.body.interruptId as string;
  await call('POST', '/runs/drift-1/pauses', { body: pause, headers: { 'Idempotency-Key': 'drift-1' } });
  await call('GET', `/runs/drift-1/pauses/${id}`);
  await call('GET', `/runs/drift-1/pauses/${id}?include=messages`, { as: 'bob' });
  await call('GET', `/runs/drift-1/pauses/${id}?include=messages&from=1&limit=1`);
  const partOne = await call('POST', '/runs/drift-2/pauses', { as: 'agent', body: pauseBody() });
  expect(partOne.status).toBe(201);
  await call('POST', '/runs/drift-3/pauses', { body: { ...pauseBody(), metadata: { n: 3 } } });
  const page = await call('GET', '/pauses?limit=1&status=paused');
  await call('GET', `/pauses?limit=1&status=paused&cursor=${String(page.body.cursor)}`);
  await call('GET', '/pauses?mine=true', { as: 'bob' });
  await call('GET', '/pauses');
  // Votes of a quorum (202 with votes), then the closing decision (200).
  const first = await call('POST', '/runs/drift-1/resume', {
    as: 'bob',
    body: {
      interruptId: id,
      decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 100 } }],
    },
  });
  expect(first.status).toBe(202);
  await call('GET', `/runs/drift-1/pauses/${id}`, { as: 'cyd' });
  const closed = await call('POST', '/runs/drift-1/resume', {
    as: 'cyd',
    body: {
      interruptId: id,
      decisions: [
        { toolCallId: 'call_ask', answer: 'full' },
        { toolCallId: 'call_refund', decision: 'approve' },
        { toolCallId: 'call_email', decision: 'reject', reason: 'Not yet.' },
      ],
    },
  });
  expect(closed.status).toBe(200);
  // Its hand-off claimed (§18): by one consumer, again by the same, then by another.
  for (const claimant of ['worker-1', 'worker-1', 'worker-2']) {
    const claim = await call('POST', `/runs/drift-1/pauses/${id}/claim`, { as: 'agent', body: { claimant } });
    expect(claim.body).toMatchObject({ claimed: claimant === 'worker-1', claimant: 'worker-1' });
  }
  await call('GET', `/runs/drift-1/pauses/${id}`);
  await call('GET', `/runs/drift-1/continuations/${String(closed.body.continuationId)}`);
  await call('GET', `/runs/drift-1/continuations/${String(closed.body.continuationId)}?from=2&limit=1`);
  // Part one: a link of its own, a granted link, an answer through a link.
  const two = partOne.body.interruptId as string;
  const granted = await call('POST', `/runs/drift-2/pauses/${two}/links`, {
    body: { email: 'ada@example.com', name: 'Ada' },
  });
  const token = String(granted.body.answerUrl).split('#')[1] as string;
  await call('GET', '/links/pause', { link: token });
  await call('GET', '/links/pause?include=messages&from=0&limit=2', { link: token });
  await call('POST', '/links/resume', { link: token, body: { answer: 'yes' } });
  await call('GET', '/links/pause', { link: token });
  // The decision made through the granted link, read back: its principal names whom the link was for (§16).
  const decided = await call('GET', `/runs/drift-2/pauses/${two}`);
  expect(decided.body).toMatchObject({
    asks: [{ decision: { by: { via: 'link', for: { email: 'ada@example.com' } } } }],
  });
  // A cancel, and refusals.
  const three = (await call('GET', '/pauses?status=paused')).body.items as Array<{
    runId: string;
    interruptId: string;
  }>;
  const open = three.find((item) => item.runId === 'drift-3') as { interruptId: string };
  const early = await call('POST', `/runs/drift-3/pauses/${open.interruptId}/claim`, {
    as: 'agent',
    body: { claimant: 'worker-1' },
  });
  expect(early.status).toBe(409);
  await call('POST', `/runs/drift-3/pauses/${open.interruptId}/cancel`, { body: { reason: 'Changed my mind.' } });
  await call('POST', `/runs/drift-3/pauses/${open.interruptId}/cancel`, { body: {} });
  await call('POST', '/runs/drift-3/resume', { body: { interruptId: open.interruptId, answer: 'late' } });
  await call('POST', '/runs/drift-4/pauses', { body: { format: 'openai-chat', messages: [] } });
  await call('POST', '/runs/drift-4/pauses', { body: { ...pauseBody(), notify: [{ channel: 'fax', to: 'x' }] } });
  await call('GET', '/runs/drift-9/pauses/1.1.nope');
  await call('POST', '/runs/drift-1/resume', {
    as: 'bob',
    body: { interruptId: id, decisions: [{ toolCallId: 'call_email', decision: 'approve' }] },
  });
  await call('GET', '/pauses', { as: 'agent' });
  await call('GET', '/health');
  await walkWithPolicies();
}

/** The policies' fields (§17): a pause they close whole (200, and its retry), one they judge in part, shadow mode. */
async function walkWithPolicies(): Promise<void> {
  const refunds = (calls: Array<[string, number]>) => ({
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Refund my orders.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: calls.map(([id, amount]) => ({
          id,
          type: 'function',
          function: { name: 'refund_order', arguments: JSON.stringify({ orderId: 'A-1', amount }) },
        })),
      },
    ],
    asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
  });
  const whole = refunds([['call_small', 20]]);
  const key = { 'Idempotency-Key': 'drift-policy-1' };
  const closed = await call('POST', '/runs/drift-p1/pauses', {
    api: 'enforce',
    as: 'agent',
    body: whole,
    headers: key,
  });
  expect(closed.status).toBe(200);
  expect(closed.body).toMatchObject({ status: 'resumed', outcome: 'resumed' });
  await call('POST', '/runs/drift-p1/pauses', { api: 'enforce', as: 'agent', body: whole, headers: key });
  await call('GET', `/runs/drift-p1/pauses/${String(closed.body.interruptId)}`, { api: 'enforce' });
  const mixed = refunds([
    ['call_small', 20],
    ['call_large', 500],
  ]);
  const part = await call('POST', '/runs/drift-p2/pauses', { api: 'enforce', as: 'agent', body: mixed });
  expect(part.status).toBe(201);
  const view = await call('GET', `/runs/drift-p2/pauses/${String(part.body.interruptId)}`, { api: 'enforce' });
  expect((view.body.asks as unknown[])[1]).toMatchObject({ fourEyes: true, policy: { outcome: 'ask' } });
  const shadow = await call('POST', '/runs/drift-p3/pauses', { api: 'shadow', as: 'agent', body: mixed });
  expect(shadow.status).toBe(201);
  await call('GET', `/runs/drift-p3/pauses/${String(shadow.body.interruptId)}`, { api: 'shadow' });
  await call('GET', '/pauses', { api: 'shadow' });
}

describe('the OpenAPI document and what the service really takes and answers', () => {
  it('names every field, parameter and body the route table’s schemas accept', () => {
    const missing: string[] = [];
    for (const route of ROUTES) {
      if ('served' in route) continue;
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()] as Schema;
      const parameters = ((operation.parameters as Array<{ name: string }> | undefined) ?? []).map((p) => p.name);
      for (const schema of ['params' in route ? route.params : undefined, 'query' in route ? route.query : undefined]) {
        if (schema === undefined) continue;
        const { properties = {} } = z.toJSONSchema(schema, { io: 'input' }) as { properties?: Schema };
        for (const name of Object.keys(properties)) {
          if (!parameters.includes(name)) missing.push(`${route.id}: parameter ${name}`);
        }
      }
      const body = 'body' in route ? (route.body as { schema?: z.ZodMiniType }).schema : undefined;
      if (body === undefined) continue;
      const content = (operation.requestBody as { content: Record<string, { schema: Schema }> }).content;
      const documented = content['application/json']?.schema as Schema;
      // Every key the schema names, at every depth, where the document can say what is there.
      const sample = keysOf(z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) as Schema);
      for (const key of undocumented(sample, documented)) missing.push(`${route.id}: body ${key}`);
    }
    expect(missing).toEqual([]);
  });

  it('describes, key for key, every request a walk through the API sends and every answer it gets', async () => {
    await walk();
    expect(seen.size).toBeGreaterThan(15);
    for (const answer of [
      'GET /runs/{runId}/pauses/{interruptId} 200',
      'POST /runs/{runId}/resume 202',
      'POST /links/resume 200',
      'POST /runs/{runId}/pauses 400',
      'POST /runs/{runId}/pauses 200',
    ]) {
      expect(seen).toContain(answer);
    }
    expect(findings).toEqual([]);
  });
});

describe('the field tables of docs/http-api.md', () => {
  const page = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');

  it('are what npm run openapi writes from the schemas every door parses with', () => {
    for (const table of FIELD_TABLES) expect(page).toContain(`<!-- fields: ${table} -->`);
    expect(page).toBe(httpApiDocText(page));
  });

  it('would fail for a field added to a schema and not to the page', () => {
    const schemas = componentSchemas();
    const pause = schemas.PauseRequest as { properties: Record<string, unknown> };
    pause.properties.priority = { type: 'integer', description: 'A field no one has written down yet.' };
    expect(withFieldTables(page, schemas)).not.toBe(page);
    expect(withFieldTables(page, schemas)).toContain('| `priority`');
  });

  it('say what every field they list is', () => {
    const fields = tableFields(componentSchemas());
    expect(fields.length).toBeGreaterThan(30);
    expect(fields.filter((field) => field.what.replace(/Required\.$/, '').trim() === '')).toEqual([]);
  });
});

/** A value with every key a JSON Schema names (objects, arrays, their branches), to hold against the document. */
function keysOf(schema: Schema): unknown {
  const parts = [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])];
  if (parts.length > 0) return Object.assign({}, ...parts.map(keysOf).filter((part) => typeof part === 'object'));
  if (schema.properties !== undefined) {
    return Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([key, value]) => [key, keysOf(value)]),
    );
  }
  if (schema.items !== undefined) return [keysOf(schema.items as Schema)];
  return null;
}
