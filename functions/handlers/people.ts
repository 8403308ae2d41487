import { endMyDelegation, getMe, type PeopleDeps, setMyDelegation } from '../checkpoints/people-me.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import { directory as DIRECTORY } from '../settings.ts';
import type { PersonView } from '../wire.ts';
import type { RouteHandlers } from './http-api.ts';
import { EdgeCode, HttpProblem } from './problem.ts';
import { json } from './serve.ts';

/**
 * The people routes (§20): `GET /people/me`, and a person's own delegation (`PUT` and `DELETE
 * /people/me/delegation`). Each calls its use case (`checkpoints/people-me.ts`) and shapes the answer; 404 where the
 * deployment has no directory or the directory knows no one for the caller.
 */

/** The people routes' handlers. */
export function peopleRoutes(deps: UseCaseDeps): Pick<RouteHandlers, 'getMe' | 'setDelegation' | 'endDelegation'> {
  const now = () => (deps.now ?? Date.now)();
  return {
    getMe: async (_, { tenant, by }) => answer(await getMe(directoryOf(deps), tenant, by, now())),
    setDelegation: async ({ body }, { tenant, by }) =>
      answer(await setMyDelegation(writableOf(deps), tenant, by, body, now())),
    endDelegation: async (_, { tenant, by }) => answer(await endMyDelegation(writableOf(deps), tenant, by, now())),
  };
}

/** The deployment's directory, or 404 without one. */
function directoryOf(deps: UseCaseDeps): PeopleDeps {
  if (deps.people === undefined) {
    throw new HttpProblem(
      404,
      EdgeCode.NotFound,
      `This deployment has no directory of persons (§20): set ${DIRECTORY.env} (context ${DIRECTORY.context} on AWS), or provision people over SCIM.`,
    );
  }
  return deps.people;
}

/** The directory with a writer for a person's own delegation, or 404 naming why this deployment cannot keep one. */
function writableOf(deps: UseCaseDeps): PeopleDeps & { writer: NonNullable<PeopleDeps['writer']> } {
  const people = directoryOf(deps);
  if (people.writer === undefined) {
    throw new HttpProblem(
      404,
      EdgeCode.NotFound,
      `Setting your own delegation is not configured here: ${people.whyReadOnly ?? "this deployment's directory is read only"}.`,
    );
  }
  return people as PeopleDeps & { writer: NonNullable<PeopleDeps['writer']> };
}

/** 200 with the person, or 404 when the directory knows no one for the caller. */
function answer(view: PersonView | undefined) {
  if (view === undefined) {
    throw new HttpProblem(
      404,
      EdgeCode.NotFound,
      "The directory knows no person for you (by your token's subject, or a verified email of yours): ask whoever keeps it to add you.",
    );
  }
  return json(200, view, { 'Cache-Control': 'no-store' });
}
