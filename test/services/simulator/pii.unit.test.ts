import { LEAD_FIELDS, leadFieldsWhere } from '@leadflow/core/lead-fields';
import { piiFields } from '@leadflow/simulator/src/pii';
import { expect } from 'chai';

// The simulator shares no code with the engine it tests, so it keeps its own list of personal field
// names; this holds that list to the engine's catalogue.
describe('the simulator recognises personal data in pings as the catalogue names it', () => {
  it('flags every field the engine withholds from pings', () => {
    for (const field of leadFieldsWhere((facts) => facts.withheldFromPings)) {
      expect(piiFields({ [field]: 'x' }), field).to.deep.equal([field]);
      expect(piiFields({ applicant: { [field]: 'x' } }), field).to.deep.equal([`applicant.${field}`]);
    }
  });

  it('flags no field a ping may carry', () => {
    const withheld: ReadonlySet<string> = new Set(leadFieldsWhere((facts) => facts.withheldFromPings));
    const allowed = Object.fromEntries(
      LEAD_FIELDS.filter((field) => !withheld.has(field)).map((field) => [field, 'x']),
    );
    expect(piiFields(allowed)).to.deep.equal([]);
  });
});
