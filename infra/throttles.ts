import { isBearer, ROUTES, type RouteSpec } from '../functions/handlers/routes.ts';
import * as S from '../functions/settings.ts';
import * as z from '../functions/zod.ts';

/**
 * The HTTP API's throttles as one setting (§23, `handback:throttles`): the routes in groups, each group a budget of
 * requests per second (`rate`) and a burst, applied to each of its routes (API Gateway's route settings; the stage's
 * default for the bearer routes). Which group a route is in is read from the route table, so a new route joins its
 * group where it is declared. Pure: the stack (`infra/http-api.ts`), the settings and the docs' table read it.
 */

/** The groups, in the order the docs list them. */
export const THROTTLE_GROUPS = ['bearer', 'mcp', 'links', 'slack', 'scim', 'inbox', 'probe', 'unmatched'] as const;

/** A group of routes sharing one budget per route. */
export type ThrottleGroup = (typeof THROTTLE_GROUPS)[number];

/** A route's budget: steady requests per second and the burst API Gateway's token bucket holds. */
export interface Throttle {
  readonly rate: number;
  readonly burst: number;
}

/** The most requests per second (and burst) a group may be given: well above any account's raised API Gateway quota. */
export const MAX_THROTTLE = 100_000;

/** The MCP function's default reserved concurrency (`handback:mcpConcurrency`). */
export const DEFAULT_MCP_CONCURRENCY: number = S.mcpConcurrency.default;

/** What each group is, for the docs, and its budget when the setting leaves it out. */
export const THROTTLE_DEFAULTS: Record<ThrottleGroup, Throttle & { readonly holds: string }> = {
  bearer: {
    rate: 1_000,
    burst: 1_000,
    holds: "every route that takes a bearer token (agents and people), the stage's default",
  },
  mcp: {
    rate: DEFAULT_MCP_CONCURRENCY,
    burst: DEFAULT_MCP_CONCURRENCY,
    holds:
      "the MCP server's route (§18); by default its budget follows `handback:mcpConcurrency`, so a burst never finds the function without a free instance",
  },
  links: { rate: 200, burst: 400, holds: 'the answer-link routes (§11): a person deciding from a link' },
  slack: { rate: 100, burst: 200, holds: "Slack's interactions (§14): clicks and modal submissions" },
  scim: { rate: 25, burst: 50, holds: "SCIM provisioning: an identity provider's `/scim/v2` requests" },
  inbox: { rate: 50, burst: 100, holds: 'the inbox page and its files (§12): a visit loads a few' },
  probe: { rate: 5, burst: 10, holds: '`/health` and `/openapi.json`' },
  unmatched: { rate: 5, burst: 10, holds: '`$default`: requests no route matches, answered 404 or 405' },
};

/**
 * SCIM's route (§20), outside the route table: the API handler serves it only when SCIM is configured
 * (`functions/handlers/http-api.ts`), the stack makes it only with `handback:scim`, in the `scim` group; `/scim/v2`
 * itself, which no SCIM request uses, falls to `$default` (404).
 */
export const SCIM_ROUTE = { method: 'ANY', path: '/scim/v2/{proxy+}' } as const;

/** The group of a route of the route table. */
export function throttleGroupOf(route: RouteSpec): Exclude<ThrottleGroup, 'unmatched'> {
  // SCIM's routes carry a secret of their own, not a user's token: a group of their own whatever their access says.
  if (route.path === '/scim' || route.path.startsWith('/scim/')) return 'scim';
  if (route.served === 'mcp') return 'mcp';
  if (isBearer(route)) return 'bearer';
  if (route.served === 'inbox') return 'inbox';
  if (route.scopes === 'link') return 'links';
  if (route.scopes === 'slack') return 'slack';
  return 'probe';
}

/** The routes of a group, as API Gateway's route keys (`GET /pauses`); `$default` for `unmatched`. */
export function routesOf(group: ThrottleGroup, routes: readonly RouteSpec[] = ROUTES): string[] {
  if (group === 'unmatched') return ['$default'];
  return routes.filter((route) => throttleGroupOf(route) === group).map((route) => `${route.method} ${route.path}`);
}

const budget = z.number().check(z.minimum(0), z.maximum(MAX_THROTTLE));

/** One group's budget as the setting gives it: `{rate, burst}`, both at least 0 (0 closes the group's routes). */
const throttle = z.strictObject({ rate: budget, burst: budget.check(z.int()) });

/** The setting's value: some groups' budgets; a group left out keeps its default. */
export const throttlesSetting = z.strictObject(
  Object.fromEntries(THROTTLE_GROUPS.map((group) => [group, z.optional(throttle)])) as Record<
    ThrottleGroup,
    z.ZodMiniOptional<typeof throttle>
  >,
);

/** What the setting may hold, as its refusals say it. */
export const THROTTLES_SHAPE = `JSON {"<group>": {"rate": <requests/s>, "burst": <requests>}, …}, the groups ${THROTTLE_GROUPS.join(', ')}`;

/**
 * Every group's budget: the setting's value (a JSON string, as `-c` gives it, or an object, as `cdk.json` may),
 * over the defaults, with the MCP group's default following `mcpConcurrency`. A value that is not such JSON is an
 * error naming the first thing wrong (`refuse` makes it: the stack's `ConfigurationError`).
 */
export function resolveThrottles(
  value: unknown,
  mcpConcurrency: number | undefined,
  refuse: (problem: string) => Error,
): Record<ThrottleGroup, Throttle> {
  let given: unknown = value;
  if (typeof value === 'string') {
    try {
      given = JSON.parse(value);
    } catch {
      throw refuse(`not JSON (it takes ${THROTTLES_SHAPE})`);
    }
  }
  let setting: Partial<Record<ThrottleGroup, Throttle>> = {};
  if (given !== undefined && given !== null && given !== '') {
    const parsed = z.safeParse(throttlesSetting, given);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw refuse(
        `${where}${issue?.message ?? 'invalid'} (it takes ${THROTTLES_SHAPE}; rate and burst from 0 to ${MAX_THROTTLE})`,
      );
    }
    setting = parsed.data;
  }
  const mcpDefault =
    mcpConcurrency === undefined ? THROTTLE_DEFAULTS.mcp : { rate: mcpConcurrency, burst: mcpConcurrency };
  return Object.fromEntries(
    THROTTLE_GROUPS.map((group) => {
      const fallback = group === 'mcp' ? mcpDefault : THROTTLE_DEFAULTS[group];
      const chosen = setting[group] ?? fallback;
      return [group, { rate: chosen.rate, burst: chosen.burst }];
    }),
  ) as Record<ThrottleGroup, Throttle>;
}
