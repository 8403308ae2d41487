import { ScimError as ScimPatchError } from 'scim-patch';
import { BadRequestError } from '../errors.ts';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery.ts';
import { Groups } from './scim-groups.ts';
import {
  errorBody,
  listResponse,
  notFound,
  ok,
  projected,
  type ScimAnswer,
  type ScimKeep,
  ScimProblem,
  type ScimRequest,
} from './scim-resources.ts';
import { Users } from './scim-users.ts';

export {
  errorBody,
  SCIM_MEDIA_TYPE,
  type ScimAnswer,
  type ScimKeep,
  ScimProblem,
  type ScimRequest,
} from './scim-resources.ts';

/**
 * SCIM 2.0 (RFC 7643/7644) over the directory (§20): Users and Groups created, read, listed with a filter, replaced,
 * patched and deleted, and the discovery resources, for one tenant. A User is a `Person` (its id; `displayName` or
 * its name as the person's name; its emails; its `externalId` as the person's issuer subject; `active`; the
 * enterprise extension's `manager`) and a document of what a person does not hold (`userName`, the structured name,
 * the emails' types); a Group is a name the persons it holds carry in their `groups`, and a document. Filters are
 * parsed by `scim2-parse-filter`, patches applied by `scim-patch` to the resource as it is served and the result read
 * as a replacement is: one mapping for PUT and PATCH. Every answer is a SCIM body or a SCIM Error; what is refused
 * changes nothing. This module routes; Users are `scim-users.ts`, Groups `scim-groups.ts`, what they share
 * `scim-resources.ts`.
 */

/** Answers one SCIM request. */
export async function scimRequest(keep: ScimKeep, request: ScimRequest): Promise<ScimAnswer> {
  try {
    return await route(keep, request);
  } catch (error) {
    if (error instanceof ScimProblem) {
      return { status: error.status, body: errorBody(error.status, error.message, error.scimType) };
    }
    if (error instanceof BadRequestError) return { status: 400, body: errorBody(400, error.message, 'invalidValue') };
    if (error instanceof ScimPatchError) {
      return { status: 400, body: errorBody(400, error.message, error.scimCode) };
    }
    throw error;
  }
}

async function route(keep: ScimKeep, request: ScimRequest): Promise<ScimAnswer> {
  const segments = request.path.split('/').filter((segment) => segment !== '');
  const [resource, id, ...rest] = segments.map((segment) => safeDecode(segment));
  const { method } = request;
  const only = (allowed: string, answer: () => Promise<ScimAnswer> | ScimAnswer) => {
    if (method !== allowed) throw new ScimProblem(405, `${method} is not allowed on ${request.path}; use ${allowed}.`);
    return answer();
  };
  if (rest.length > 0 || resource === undefined) throw notFound(request.path);
  const users = new Users(keep, request);
  const groups = new Groups(keep, request);
  switch (resource) {
    case 'ServiceProviderConfig':
      if (id !== undefined) throw notFound(request.path);
      return only('GET', () => ok(serviceProviderConfig(request.base)));
    case 'ResourceTypes':
      return only('GET', () => discovery(resourceTypes(request.base), id, request.path));
    case 'Schemas':
      return only('GET', () => discovery(schemas(request.base), id, request.path));
    case 'Users':
    case 'Groups': {
      const kind = resource === 'Users' ? users : groups;
      if (id === undefined) {
        if (method === 'GET') return kind.list();
        return only('POST', () => kind.create(request.body));
      }
      switch (method) {
        case 'GET':
          return ok(projected(await kind.get(id), request.query));
        case 'PUT':
          return kind.replace(id, request.body);
        case 'PATCH':
          return kind.patch(id, request.body);
        case 'DELETE':
          return kind.delete(id);
        default:
          throw new ScimProblem(405, `${method} is not allowed on ${request.path}; use GET, PUT, PATCH or DELETE.`);
      }
    }
    default:
      throw notFound(request.path);
  }
}

/** A discovery listing, or one of its resources by id. */
function discovery(resources: Array<{ id: string }>, id: string | undefined, path: string): ScimAnswer {
  if (id === undefined) return ok(listResponse(resources, resources.length, 1));
  const found = resources.find((resource) => resource.id === id);
  if (found === undefined) throw notFound(path);
  return ok(found);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ScimProblem(404, `No resource ${segment}.`);
  }
}
