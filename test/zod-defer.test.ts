import { describe, expect, it } from 'vitest';
import * as z from '../functions/zod.ts';

/** A deferred schema and a count of how often its factory ran. */
function counted<T extends object>(make: () => T) {
  const built = { times: 0 };
  const schema = z.defer(() => {
    built.times += 1;
    return make();
  });
  return { schema, built };
}

describe('z.defer: a schema built by its first use', () => {
  it('builds nothing at definition, nor when composed into another deferred schema, and builds once', () => {
    const inner = counted(() => z.object({ name: z.string().check(z.maxLength(3)) }));
    const outer = counted(() => z.object({ person: inner.schema, tags: z.array(z.string()) }));
    expect([inner.built.times, outer.built.times]).toEqual([0, 0]);

    expect(outer.schema.safeParse({ person: { name: 'Ada' }, tags: [] }).success).toBe(true);
    expect(outer.schema.safeParse({ person: { name: 'Grace' }, tags: [] }).success).toBe(false);
    expect(z.parse(outer.schema, { person: { name: 'Al' }, tags: ['x'] })).toEqual({
      person: { name: 'Al' },
      tags: ['x'],
    });
    expect([inner.built.times, outer.built.times]).toEqual([1, 1]);
  });

  it('parses, fails and names the path exactly as the schema it defers', () => {
    const make = () => z.object({ id: z.string().check(z.minLength(2)), n: z.optional(z.number()) });
    const eager = make();
    const deferred = z.defer(make);
    for (const input of [{ id: 'ab' }, { id: 'a' }, { id: 'ab', n: 'x' }, null, { n: 1 }]) {
      const a = eager.safeParse(input);
      const b = deferred.safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
  });

  it('is an instance of what it defers, and a check of it keeps it as the parent', () => {
    const deferred = z.defer(() => z.object({ a: z.number() }));
    expect(deferred instanceof z.ZodMiniObject).toBe(true);
    const described = deferred.check(z.describe('with a description'));
    expect((described as unknown as { _zod: { parent: unknown } })._zod.parent).toBe(deferred);
    expect(described.safeParse({ a: 'no' }).success).toBe(false);
  });

  it('gives the JSON Schema the built schema gives, its metadata and a registry’s $refs with it', () => {
    const make = () => z.string().check(z.meta({ description: 'A name.' }), z.maxLength(8));
    expect(z.toJSONSchema(z.defer(make))).toEqual(z.toJSONSchema(make()));

    const shapes = (defer: boolean) => {
      const d = <T extends object>(f: () => T) => (defer ? z.defer(f) : f());
      const counts = d(() => z.object({ approve: z.number() }));
      const stats = d(() => z.object({ outcomes: counts.check(z.describe('Settled asks.')) }));
      const registry = z.registry<{ id: string }>();
      registry.add(stats, { id: 'Stats' });
      registry.add(counts, { id: 'Counts' });
      return z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` }).schemas;
    };
    expect(shapes(true)).toEqual(shapes(false));
    expect(shapes(true).Stats?.properties).toEqual({
      outcomes: { description: 'Settled asks.', $ref: '#/components/schemas/Counts' },
    });
  });

  it('once used, is an ordinary object: its own `_zod` the built schema’s, its prototype theirs (no trap on a parse)', () => {
    let built: z.ZodMiniObject | undefined;
    const deferred = z.defer(() => {
      built = z.object({ a: z.number() });
      return built;
    });
    expect(Object.hasOwn(deferred, '_zod')).toBe(false);
    expect(deferred.safeParse({ a: 1 }).success).toBe(true);
    expect(Object.getOwnPropertyDescriptor(deferred, '_zod')?.value).toBe(built?._zod);
    expect(Object.getPrototypeOf(deferred)).toBe(Object.getPrototypeOf(built));
  });

  it('is registered as itself, and handed to apply as itself', () => {
    const deferred = z.defer(() => z.string());
    const registry = z.registry<{ id: string }>();
    expect(deferred.register(registry, { id: 'S' })).toBe(deferred);
    expect(registry.get(deferred)).toEqual({ id: 'S' });
    expect(deferred.apply((schema) => schema)).toBe(deferred);
  });
});
