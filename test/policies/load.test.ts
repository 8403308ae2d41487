import { describe, expect, it } from 'vitest';
import { InvalidPoliciesError } from '../../functions/errors.ts';
import { statementsOf } from '../../functions/policies/text.ts';
import { load } from './support.ts';

/** The error `run` throws, which must be an `InvalidPoliciesError`. */
function refusal(run: () => unknown): InvalidPoliciesError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPoliciesError);
    return error as InvalidPoliciesError;
  }
  throw new Error('it loaded');
}

const PERMIT = 'permit(principal, action == Handback::Action::"call", resource)';

describe('loading policies', () => {
  it('reads each policy with its id, effect, annotations and scope, in the file order', () => {
    const loaded = load(`@id("refunds")
@approvers("group:finance, email:CFO@example.com, sub:ann, slack:T1:U2")
@approvals("2")
@fourEyes("true")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order");

@id("no-deletes") @reason("Nothing is deleted by an agent")
forbid(principal is Handback::Agent, action, resource == Handback::Tool::"delete_customer");
`);
    expect([...loaded.policies.keys()]).toEqual(['refunds', 'no-deletes']);
    expect(loaded.policies.get('refunds')).toMatchObject({
      effect: 'permit',
      approvers: { groups: ['finance'], emails: ['CFO@example.com'], subjects: ['ann', 'slack:T1:U2'] },
      approvals: 2,
      fourEyes: true,
      actions: ['call'],
      tools: ['refund_order'],
    });
    expect(loaded.policies.get('no-deletes')).toMatchObject({
      effect: 'forbid',
      reason: 'Nothing is deleted by an agent',
      tools: ['delete_customer'],
    });
    expect(loaded.policies.get('no-deletes')?.actions).toBeUndefined();
  });

  it("refuses a syntax error at its line and column counted in characters, in Cedar's words", () => {
    // Line 2 holds non-ASCII characters before the error: a byte count would put the column past it.
    const error = refusal(() =>
      load(`@id("é-refunds")\n@reason("Rückerstattung — nie")  forbid(principal, action, resource) when { ééé };\n`),
    );
    expect(error.file).toBe('policies.cedar');
    expect(error.line).toBe(2);
    expect(error.column).toBe(
      '@reason("Rückerstattung — nie")  forbid(principal, action, resource) when { '.length + 1,
    );
    expect(error.reason).toContain('failed to parse policies from string');
    expect(error.message).toBe(`policies.cedar:2:${error.column}: ${error.reason}`);
  });

  it('refuses a policy that does not validate against the schema, naming the attribute', () => {
    const error = refusal(() => load(`@id("a")\n${PERMIT}\n  when { context.args.amount > 5 };\n`));
    expect(error.line).toBe(3);
    expect(error.column).toBe(10);
    expect(error.reason).toContain('unable to guarantee safety of access to optional attribute `args.amount`');
    expect(error.reason).toContain('context.args has amount');
  });

  it('refuses a policy that reads an argument the schema does not declare: it could never apply', () => {
    const error = refusal(() =>
      load(`// colour, not color\n@id("paint")\n${PERMIT} when { context.args has colour };\n`),
    );
    expect([error.line, error.column]).toEqual([2, 1]);
    expect(error.reason).toContain('for policy `paint`, policy is impossible');
  });

  it.each([
    ['a policy without @id', `${PERMIT};`, 1, 'has no @id'],
    ['a reserved id', `@id("default") ${PERMIT};`, 1, 'reserved'],
    ['an id with a space', `@id("two words") ${PERMIT};`, 1, 'must be 1–128 of'],
    ['an @approvals of 6', `@id("a") @approvals("6") ${PERMIT};`, 1, '@approvals("6") must be "1" to "5"'],
    ['an @approvals of two', `@id("a") @approvals("two") ${PERMIT};`, 1, '@approvals("two")'],
    ['an @fourEyes of yes', `@id("a") @fourEyes("yes") ${PERMIT};`, 1, '@fourEyes("yes") must be "true" or "false"'],
    ['an unknown approvers prefix', `@id("a") @approvers("team:x") ${PERMIT};`, 1, '"team:" is none of'],
    [
      'approvers on a forbid',
      '@id("a") @approvers("group:x") forbid(principal, action, resource);',
      1,
      'belong to permit policies',
    ],
    // §19
    ['an @validFor of an hour in words', `@id("a") @validFor("1 hour") ${PERMIT};`, 1, '@validFor("1 hour") must be'],
    ['an @validFor of months', `@id("a") @validFor("P1M") ${PERMIT};`, 1, 'an ISO 8601 duration of weeks'],
    ['an @validFor of nothing', `@id("a") @validFor("PT0S") ${PERMIT};`, 1, 'above zero'],
    ['an @validFor on a forbid', '@id("a") @validFor("PT1H") forbid(principal, action, resource);', 1, 'forbid'],
    [
      'an @validFor on a permit of callWithoutApproval',
      '@id("a") @validFor("PT1H") permit(principal, action == Handback::Action::"callWithoutApproval", resource);',
      1,
      '@validFor belongs to permits of call',
    ],
  ])('refuses %s', (_, text, line, words) => {
    const error = refusal(() => load(`// first line\n\n${text}\n`));
    expect(error.line).toBe(line + 2);
    expect(error.column).toBe(1);
    expect(error.reason).toContain(words);
  });

  it('reads @validFor (§19) on a permit of call, and keeps the shortest of those that apply as what an approval is worth', () => {
    const loaded = load(`@id("an-hour") @validFor("PT1H") ${PERMIT};\n@id("a-day") @validFor("P1D") ${PERMIT};\n`);
    expect(loaded.policies.get('an-hour')?.validFor).toBe('PT1H');
    expect(loaded.policies.get('a-day')?.validFor).toBe('P1D');
  });

  it('refuses an id used twice, at the second policy, naming the first', () => {
    const error = refusal(() => load(`@id("a") ${PERMIT};\n@id("b") ${PERMIT};\n  @id("a") ${PERMIT};\n`));
    expect([error.line, error.column]).toEqual([3, 3]);
    expect(error.reason).toBe('@id("a") is already the id of the policy at line 1');
  });

  it("refuses templates, in Cedar's words", () => {
    const error = refusal(() => load('@id("t") permit(principal == ?principal, action, resource);'));
    expect(error.reason).toContain('static policy set includes a template');
  });

  it("refuses a schema error in the deployment's file, at its place there", () => {
    const error = refusal(() =>
      load(`@id("a") ${PERMIT};`, 'namespace Handback {\n  type Args = { amount?: Lon };\n}\n'),
    );
    expect(error.file).toBe('args.cedarschema');
    expect(error.line).toBe(2);
    expect(error.column).toBe(26);
    expect(error.reason).toContain('Lon');
  });

  it('refuses a schema syntax error after a non-ASCII comment at its character column', () => {
    const error = refusal(() =>
      load(`@id("a") ${PERMIT};`, '// Schéma — ünsere\nnamespace Handback { type Args = { amount?: Long } }\n'),
    );
    expect(error.file).toBe('args.cedarschema');
    expect(error.line).toBe(2);
    expect(error.column).toBe('namespace Handback { type Args = { amount?: Long } '.length + 1);
  });

  it('refuses a required argument: every call may leave any out', () => {
    const error = refusal(() =>
      load(`@id("a") ${PERMIT};`, 'namespace Handback {\n  type Args = { amount: Long };\n}\n'),
    );
    expect([error.file, error.line, error.column]).toEqual(['args.cedarschema', 2, 17]);
    expect(error.reason).toContain('Args.amount must be optional');
  });

  it('refuses a deployment schema without the Handback namespace', () => {
    const error = refusal(() => load(`@id("a") ${PERMIT};`, 'namespace Shop { type Args = {}; }\n'));
    expect(error.reason).toContain('no namespace Handback');
  });

  it("refuses a deployment schema that declares Handback's own entities again", () => {
    const error = refusal(() =>
      load(`@id("a") ${PERMIT};`, 'namespace Handback {\n  type Args = {};\n  entity Tool;\n}\n'),
    );
    expect(error.file).toBe('args.cedarschema');
    expect(error.reason).toContain('Tool');
  });

  it('takes no deployment schema: Args then has no attributes', () => {
    expect(load(`@id("a") ${PERMIT};`, null).policies.size).toBe(1);
    expect(() => load(`@id("a") ${PERMIT} when { context.args has amount && context.args.amount > 1 };`, null)).toThrow(
      /policy is impossible/,
    );
  });

  it('reads 300 policies in the file order, whichever order Cedar splits the file in', () => {
    const text = Array.from({ length: 300 }, (_, i) => `@id("p-${i}")\n${PERMIT} when { ${i} > 0 || true };\n`);
    expect([...load(text.join('\n')).policies.keys()]).toEqual(text.map((_, i) => `p-${i}`));
  });

  it('places an error of the 250th of 300 policies, after non-ASCII text in others, at its line and column', () => {
    const policy = (i: number) =>
      i === 249
        ? `@id("p-${i}")\n${PERMIT}\n  when { context.args.amount > 5 };`
        : `@id("p-${i}") @reason("Rückerstattung — ${i} €")\nforbid(principal, action, resource);`;
    const error = refusal(() => load(Array.from({ length: 300 }, (_, i) => policy(i)).join('\n')));
    // Each policy before it is two lines.
    expect([error.line, error.column]).toEqual([249 * 2 + 3, 10]);
    expect(error.reason).toContain('`args.amount`');
  });

  it('takes a file with no policies', () => {
    expect(load('// nothing yet\n').policies.size).toBe(0);
  });
});

describe('the statements of a policy file', () => {
  it("are found in one pass, each from its first token to its ';', past comments and strings that hold ';'", () => {
    const text =
      '// a; comment\n@id("a;b") permit(principal, action, resource) // c;\nwhen { "x;y" == "x;y" };\n\n  forbid(principal, action, resource);\ntrailing';
    expect(statementsOf(text)).toEqual([
      {
        text: '@id("a;b") permit(principal, action, resource) // c;\nwhen { "x;y" == "x;y" };',
        index: 14,
        byte: 14,
        line: 2,
      },
      {
        text: 'forbid(principal, action, resource);',
        index: text.indexOf('forbid'),
        byte: text.indexOf('forbid'),
        line: 5,
      },
    ]);
  });

  it('count UTF-8 bytes as Cedar does, a character beyond U+FFFF four of them', () => {
    const text = '@reason("é €😀") forbid(principal, action, resource);\n@id("b") forbid(principal, action, resource);';
    const [, second] = statementsOf(text);
    expect(second).toMatchObject({
      index: text.indexOf('@id'),
      byte: Buffer.byteLength(text.slice(0, text.indexOf('@id'))),
    });
  });
});
