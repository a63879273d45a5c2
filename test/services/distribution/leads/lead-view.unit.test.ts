import { personHashes, storedLead } from '@leadflow/distribution/src/leads/lead-record';
import { leadView } from '@leadflow/distribution/src/leads/lead-view';
import { validateLead } from '@leadflow/distribution/src/leads/validation';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { testKeyRing } from '../../../support/key-ring.js';
import { validLeadBody } from '../../../support/leads.js';

describe('leadView', () => {
  const { cipher, hasher } = testKeyRing();

  function fieldsShown(changes: Record<string, string>): Record<string, string> {
    const validation = validateLead(Lead.fromPartial(validLeadBody(changes) as Partial<Lead>), [], new Date());
    if (!validation.ok) expect.fail(JSON.stringify(validation.errors));
    const identity = {
      id: 'lead_1',
      publisherId: 'pub_1',
      fingerprint: 'f',
      claimToken: 'clm_1',
      now: Date.now(),
      person: personHashes(validation.lead, hasher),
    };
    return leadView(storedLead(validation.lead, identity, cipher), [], cipher).fields;
  }

  it('masks personal fields as the catalogue says', () => {
    const fields = fieldsShown({ firstName: 'Maria', driversLicenseNumber: 'D1234567', address: '1 Main St' });
    expect(fields).to.include({
      firstName: 'M****',
      driversLicenseNumber: '****4567',
      address: '*********',
      email: 'm***********@example.com',
      city: 'San Francisco',
    });
  });

  it('masks by characters: an emoji is one, never half a surrogate pair', () => {
    const fields = fieldsShown({
      firstName: '😀mily',
      lastName: 'Lee😀',
      driversLicenseNumber: 'D12😀😀34',
      address: '1 😀 St',
    });
    expect(fields).to.include({
      firstName: '😀****',
      lastName: 'L***',
      driversLicenseNumber: '***😀😀34',
      address: '******',
    });
    expect(JSON.stringify(fields)).not.to.match(/\\ud[89ab]/i);
  });
});
