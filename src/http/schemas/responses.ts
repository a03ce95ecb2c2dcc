// Success entries of routes' `schema.response`, referring to the named wire schemas
// (wire-schemas.ts) so that the OpenAPI document and generated clients name them.
import { Type } from 'typebox';

/** A 2xx answer whose body is the named schema. */
export function okRef(name: string, description: string) {
  return Type.Ref(name, { description });
}

/** A 2xx answer whose body is a list of the named schema. */
export function okList(name: string, description: string) {
  return Type.Array(Type.Ref(name), { description });
}
