/**
 * A small evaluator of the IAM policy statements a template holds, for testing a grant against the request a service
 * authorizes (its action, the resources it checks, its condition keys), as IAM's policy evaluation logic documents
 * it: an explicit Deny wins, else an Allow that matches, else the implicit deny. Only what the stack writes is
 * supported (`Fn::Join` over strings and the pseudo parameters; the condition operators below): anything else throws,
 * so a test never passes on something the evaluator did not understand.
 */

/** The pseudo parameters a template's ARNs are resolved with. */
export const ACCOUNT = { partition: 'aws', region: 'eu-west-1', account: '111122223333' } as const;

/** One request as IAM sees it. */
export interface AccessRequest {
  action: string;
  resource: string;
  /** The request's condition keys (`ses:FromAddress`, `dynamodb:LeadingKeys`, `aws:PrincipalArn`, …). */
  context?: Record<string, string | readonly string[]>;
  /** Who asks, for a resource policy's `Principal`. */
  principal?: string;
}

type Statement = Record<string, unknown>;

/** A template value as a string: `Fn::Join` resolved, pseudo parameters substituted, other references named. */
export function resolve(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
  const node = value as Record<string, unknown>;
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(separator);
  }
  if ('Ref' in node) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': ACCOUNT.partition,
      'AWS::Region': ACCOUNT.region,
      'AWS::AccountId': ACCOUNT.account,
    };
    return pseudo[node.Ref as string] ?? `{${node.Ref as string}}`;
  }
  if ('Fn::GetAtt' in node) return `{${(node['Fn::GetAtt'] as string[]).join('.')}}`;
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** IAM's wildcards: `*` any run of characters, `?` one. */
function glob(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${source}$`, 's').test(value);
}

function conditionHolds(operator: string, key: string, expected: unknown, request: AccessRequest): boolean {
  const wanted = list(expected).map(resolve);
  const given = request.context?.[key];
  const values = given === undefined ? [] : typeof given === 'string' ? [given] : [...given];
  const any = (test: (pattern: string, value: string) => boolean) =>
    values.some((value) => wanted.some((pattern) => test(pattern, value)));
  switch (operator) {
    case 'StringEquals':
    case 'ArnEquals':
    case 'Bool':
      return any((pattern, value) => pattern === value);
    case 'StringLike':
    case 'ArnLike':
      return any(glob);
    case 'StringNotLike':
    case 'ArnNotLike':
      // Without the key, a negated operator holds (IAM: the key is absent, so it cannot match).
      return !any(glob);
    case 'ForAllValues:StringLike':
      return values.every((value) => wanted.some((pattern) => glob(pattern, value)));
    default:
      throw new Error(`The evaluator does not know the condition operator ${operator}`);
  }
}

function principalMatches(statement: Statement, request: AccessRequest): boolean {
  if (!('Principal' in statement)) return true;
  const principal = statement.Principal;
  if (principal === '*') return true;
  const { AWS, Service } = principal as { AWS?: unknown; Service?: unknown };
  const named = [...list(AWS ?? []), ...list(Service ?? [])].map(resolve);
  return named.includes('*') || (request.principal !== undefined && named.includes(request.principal));
}

function matches(statement: Statement, request: AccessRequest): boolean {
  const actions = list(statement.Action).map(resolve);
  if (!actions.some((action) => glob(action, request.action))) return false;
  const resources = list(statement.Resource ?? '*').map(resolve);
  if (!resources.some((resource) => glob(resource, request.resource))) return false;
  if (!principalMatches(statement, request)) return false;
  const conditions = (statement.Condition ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => conditionHolds(operator, key, expected, request)),
  );
}

/** What the statements answer a request: an explicit `deny`, an `allow`, or `implicit` (no statement allows it). */
export function evaluate(statements: readonly Statement[], request: AccessRequest): 'allow' | 'deny' | 'implicit' {
  const matching = statements.filter((statement) => matches(statement, request));
  if (matching.some((statement) => statement.Effect === 'Deny')) return 'deny';
  return matching.some((statement) => statement.Effect === 'Allow') ? 'allow' : 'implicit';
}

/** The ARN of an SES resource in the test account. */
export function sesArn(resource: string, region: string = ACCOUNT.region): string {
  return `arn:${ACCOUNT.partition}:ses:${region}:${ACCOUNT.account}:${resource}`;
}
