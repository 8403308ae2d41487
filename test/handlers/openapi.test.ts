import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };

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

  it('describes every error response as application/problem+json', () => {
    for (const response of Object.values(openapi.components.responses)) {
      expect(Object.keys(response.content)).toEqual(['application/problem+json']);
    }
  });
});
