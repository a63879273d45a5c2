// Superseded by @types/chai: import { expect } from 'chai' directly.
export { expect } from 'chai';
