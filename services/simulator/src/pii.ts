import { leaves } from './body-fields.js';
import type { RequestFields } from './request-body.js';

// Normalized field names (see body-fields.ts) that identify or contact a person, the IP included: none belongs
// in a ping. test/services/simulator/pii.unit.test.ts holds this list to the engine's lead-field catalogue.
const PII_NAMES: ReadonlySet<string> = new Set([
  'ssn',
  'socialsecuritynumber',
  'dob',
  'dateofbirth',
  'birthdate',
  'bankaccountnumber',
  'accountnumber',
  'bankaba',
  'aba',
  'routingnumber',
  'bankroutingnumber',
  'driverslicensenumber',
  'driverslicense',
  'email',
  'emailaddress',
  'phone',
  'phonenumber',
  'homephone',
  'cellphone',
  'workphone',
  'mobilephone',
  'firstname',
  'lastname',
  'fullname',
  'address',
  'streetaddress',
  'userip',
  'ipaddress',
]);

/** Paths of the fields of a ping body that carry personal data, e.g. ["email", "applicant.ssn"]. */
export function piiFields(body: RequestFields): string[] {
  return leaves(body)
    .filter((leaf) => PII_NAMES.has(leaf.name))
    .map((leaf) => leaf.path);
}
