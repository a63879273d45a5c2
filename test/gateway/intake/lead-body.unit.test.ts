import { GatewayError } from '@leadflow/gateway/src/errors';
import { leadFromBody } from '@leadflow/gateway/src/intake/lead-body';
import { expect } from 'chai';

describe('leadFromBody', () => {
  it('copies strings, names non-strings and ignores the rest', () => {
    const { lead, nonStringFields } = leadFromBody({ firstName: 'Ada', zip: 62701, dob: null, extra: 'x' });
    expect(lead.firstName).to.equal('Ada');
    expect(lead.zip).to.equal('');
    expect(nonStringFields).to.deep.equal(['dob', 'zip']);
    expect(lead).to.not.have.property('extra');
  });

  it('ignores fields inherited from the prototype', () => {
    const body = Object.create({ firstName: 'inherited' }) as Record<string, unknown>;
    expect(leadFromBody(body).lead.firstName).to.equal('');
  });

  it('refuses a value with half a surrogate pair, which gRPC would turn into U+FFFD, naming each field', () => {
    const body = JSON.parse(
      '{"firstName": "\\ud800Ada", "lastName": "Lovelace\\udfff", "city": "\\ud83d\\ude00 Springfield"}',
    );
    expect(() => leadFromBody(body))
      .to.throw(GatewayError)
      .with.property('errors')
      .that.has.all.keys('firstName', 'lastName');
    expect(leadFromBody({ city: '\u{1F600} Springfield' }).lead.city, 'a whole pair is text').to.equal(
      '\u{1F600} Springfield',
    );
    expect(leadFromBody(JSON.parse('{"note": "\\ud800"}')).lead, 'an unknown field is ignored').to.not.have.property(
      'note',
    );
  });

  it('refuses what is not a JSON object', () => {
    for (const body of [[], null, 'lead', 1, true]) {
      expect(() => leadFromBody(body), JSON.stringify(body)).to.throw(GatewayError);
    }
  });
});
