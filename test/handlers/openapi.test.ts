import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ERROR_FATES } from '../../functions/errors.ts';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };
import { EdgeCode } from '../../functions/handlers/problem.ts';
import { ROUTES } from '../../functions/handlers/routes.ts';
import {
  ASK_KINDS,
  DECISION_KINDS,
  FORMAT_NAMES,
  LIMITS,
  ON_EXPIRY,
  OUTCOMES,
  PAUSE_STATUSES,
} from '../../functions/vocabulary.ts';
import { openApiText } from '../../scripts/openapi.ts';

/** The parts of OpenAPI 3.1's structure the document must have (a subset of the official schema, checked by ajv). */
const structure = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { const: '3.1.0' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: { type: 'string' }, version: { type: 'string' } },
    },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        propertyNames: { enum: ['get', 'post', 'put', 'patch', 'delete', 'parameters', 'summary', 'description'] },
        additionalProperties: {
          type: 'object',
          required: ['operationId', 'responses'],
          properties: {
            operationId: { type: 'string' },
            parameters: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'in', 'schema'],
                properties: { in: { enum: ['path', 'query', 'header'] }, required: { type: 'boolean' } },
                // A path parameter is always required.
                anyOf: [
                  { properties: { in: { not: { const: 'path' } } } },
                  { required: ['required'], properties: { required: { const: true } } },
                ],
              },
            },
            responses: {
              type: 'object',
              minProperties: 1,
              propertyNames: { pattern: '^[1-5][0-9][0-9]$' },
              additionalProperties: {
                oneOf: [
                  { type: 'object', required: ['$ref'] },
                  { type: 'object', required: ['description'], not: { required: ['$ref'] } },
                ],
              },
            },
          },
        },
      },
    },
    components: { type: 'object', required: ['schemas', 'responses'] },
  },
} as const;

function refsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' && typeof item === 'string' ? [item] : refsOf(item),
  );
}

function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], openapi);
}

describe('the OpenAPI document', () => {
  it('has the structure of an OpenAPI 3.1 document', () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(structure);
    expect(validate(openapi), JSON.stringify(validate.errors)).toBe(true);
  });

  it('resolves every $ref', () => {
    const refs = refsOf(openapi);
    expect(refs.length).toBeGreaterThan(10);
    expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([]);
  });

  it('declares every path parameter of every templated path', () => {
    for (const [path, item] of Object.entries(openapi.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(
        item as Record<string, { parameters?: Array<{ name: string; in: string }> }>,
      )) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort()).toEqual(names.sort());
      }
    }
  });

  it('has component schemas that compile as JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', components: openapi.components });
    for (const name of Object.keys(openapi.components.schemas)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`)).not.toThrow();
    }
  });

  it('describes every error response as application/problem+json, with the one problem schema', () => {
    for (const response of Object.values(openapi.components.responses)) {
      expect(response.content).toEqual({
        'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
      });
    }
  });
});

describe('the OpenAPI document and the route table', () => {
  it('is what npm run openapi writes from the table', () => {
    expect(readFileSync(fileURLToPath(new URL('../../functions/handlers/openapi.json', import.meta.url)), 'utf8')).toBe(
      openApiText(),
    );
  });

  it('lists every route the API function serves, and no other', () => {
    const documented = Object.entries(openapi.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = ROUTES.filter((route) => !('served' in route) || route.served !== 'inbox').map(
      (route) => `${route.method} ${route.path}`,
    );
    expect(documented.sort()).toEqual(served.sort());
  });

  it.each(
    ROUTES.filter((route) => !('served' in route) || route.served !== 'inbox').map(
      (route) => [route.id, route] as const,
    ),
  )('gives %s the security its scopes say', (_id, route) => {
    const operation = (openapi.paths as Record<string, Record<string, { security: unknown }>>)[route.path]?.[
      route.method.toLowerCase()
    ];
    expect(operation?.security).toEqual(
      Array.isArray(route.scopes) ? route.scopes.map((scope) => ({ bearer: [scope] })) : [],
    );
  });

  it('holds the limits and word lists of the vocabulary', () => {
    const schemas = openapi.components.schemas;
    expect(schemas.Format.enum).toEqual([...FORMAT_NAMES]);
    expect(schemas.PauseRequest.properties.asks.maxItems).toBe(LIMITS.asks.max);
    expect(schemas.ResumeRequest.properties.decisions.maxItems).toBe(LIMITS.asks.max);
    expect(schemas.LinkResumeRequest.properties.decisions.maxItems).toBe(LIMITS.asks.max);
    expect(schemas.PauseRequest.properties.expiresInSeconds).toMatchObject({
      minimum: LIMITS.expiresInSeconds.min,
      maximum: LIMITS.expiresInSeconds.max,
      default: LIMITS.expiresInSeconds.default,
    });
    expect(schemas.PauseRequest.properties.onExpiry.enum).toEqual([...ON_EXPIRY]);
    expect(schemas.PauseView.properties.status.anyOf[0]?.enum).toEqual([...PAUSE_STATUSES]);
    expect(schemas.Continuation.properties.outcome.enum).toEqual([...OUTCOMES]);
    expect(schemas.Ask.properties.kind.enum).toEqual([...ASK_KINDS]);
    const kinds = schemas.Decision.oneOf.flatMap((branch) =>
      branch.properties.decision.const === undefined ? [] : [branch.properties.decision.const],
    );
    expect(kinds).toEqual([...DECISION_KINDS]);
    expect(schemas.Ask.properties.prompt.maxLength).toBe(LIMITS.promptChars);
    const list = openapi.paths['/pauses'].get.parameters;
    expect(list.find((p) => p.name === 'limit')?.schema).toMatchObject({
      minimum: LIMITS.pageSize.min,
      maximum: LIMITS.pageSize.max,
    });
    expect(list.find((p) => p.name === 'status')?.schema).toMatchObject({ enum: [...PAUSE_STATUSES] });
  });

  it('names every problem code the API answers', () => {
    const words = openapi.components.schemas.Problem.properties.code.description;
    for (const code of [...Object.keys(ERROR_FATES), ...Object.values(EdgeCode)]) expect(words).toContain(code);
  });
});
