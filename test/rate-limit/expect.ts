// chai 6 ships no type declarations and @types/chai is not installed, so this types the part of
// chai's `expect` these tests use. Once @types/chai is a dev dependency, import from 'chai'
// directly and delete this file.
// @ts-ignore TS7016: no declaration file for 'chai'
import { expect as chaiExpect } from 'chai';

export interface Assertion {
  to: Assertion;
  be: Assertion;
  and: Assertion;
  not: Assertion;
  have: Assertion;
  deep: Assertion;
  equal(expected: unknown, message?: string): Assertion;
  include(expected: unknown, message?: string): Assertion;
  within(low: number, high: number, message?: string): Assertion;
  below(limit: number, message?: string): Assertion;
  a(type: string, message?: string): Assertion;
  instanceOf(constructor: abstract new (...args: never[]) => unknown, message?: string): Assertion;
  length(expected: number, message?: string): Assertion;
}

export const expect: {
  (value: unknown, message?: string): Assertion;
  fail(message?: string): never;
} = chaiExpect;
