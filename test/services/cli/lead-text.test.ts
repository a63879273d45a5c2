import { heldFor, unconfirmedTable } from '@leadflow/cli/src/lead-text';
import { expect } from 'chai';

describe('cli: the unconfirmed leads table', () => {
  it("shows each held lead's buyer and how long it has been held", () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const text = unconfirmedTable(
      [
        {
          leadId: 'lead_1',
          publisherId: 'pub_1',
          clickid: 'c-1',
          buyerId: 'buy_1',
          postId: 'pst_1',
          postTime: new Date(now - (3 * 3600 + 20 * 60 + 5) * 1000),
          test: false,
        },
      ],
      () => 'Acme Lending',
      now,
    );
    const [header, row] = text.trim().split('\n');
    expect(header).to.match(/BUYER\s+POSTED\s+AGE\s+ATTEMPT/);
    expect(row).to.include('Acme Lending').and.to.include('3h 20m');
  });

  it('counts an age in its two largest units', () => {
    expect(heldFor(0)).to.equal('0s');
    expect(heldFor(45_000)).to.equal('45s');
    expect(heldFor(12 * 60_000 + 5000)).to.equal('12m 5s');
    expect(heldFor(2 * 86_400_000 + 4 * 3_600_000 + 59_000)).to.equal('2d 4h');
    expect(heldFor(3_600_000 + 30_000)).to.equal('1h');
  });
});
