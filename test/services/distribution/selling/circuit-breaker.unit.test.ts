import { CircuitBreakers, DEFAULT_CIRCUIT_BREAKER } from '@leadflow/distribution/src/selling/circuit-breaker';
import { expect } from 'chai';

describe('CircuitBreakers', () => {
  let now: number;
  const breakers = () => new CircuitBreakers({ ...DEFAULT_CIRCUIT_BREAKER, now: () => now });
  const record = (circuit: CircuitBreakers, outcomes: string) => {
    for (const outcome of outcomes) {
      if (outcome === 'x') circuit.recordFailure('b');
      else circuit.recordSuccess('b');
    }
  };
  const { firstPauseMs, maxPauseMs } = DEFAULT_CIRCUIT_BREAKER;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('opens at the fifth failure of a buyer that only fails', () => {
    const circuit = breakers();
    record(circuit, 'xxxx');
    expect(circuit.state('b')).to.equal('closed');
    record(circuit, 'x');
    expect(circuit.state('b')).to.equal('open');
    expect(circuit.allow('b')).to.equal(false);
    expect(circuit.state('other')).to.equal('closed');
  });

  it('keeps a buyer that fails a quarter of its calls, even five in a row among twenty', () => {
    const circuit = breakers();
    record(circuit, 'ooooxooxoooxoooooxoo'.repeat(5));
    record(circuit, 'oooooooooooooooxxxxx');
    expect(circuit.state('b')).to.equal('closed');
    expect(circuit.allow('b')).to.equal(true);
  });

  it('opens when failures reach 60% of the last twenty calls', () => {
    const circuit = breakers();
    record(circuit, 'oxoxoxoxoxoxoxoxoxox');
    expect(circuit.state('b'), 'half of them').to.equal('closed');
    record(circuit, 'xx');
    expect(circuit.state('b'), '11 of the last 20').to.equal('closed');
    record(circuit, 'x');
    expect(circuit.state('b'), '12 of the last 20').to.equal('open');
  });

  it('judges the last twenty calls only: older successes do not hide a buyer that started failing', () => {
    const circuit = breakers();
    record(circuit, 'o'.repeat(40));
    record(circuit, 'x'.repeat(11));
    expect(circuit.state('b')).to.equal('closed');
    record(circuit, 'x');
    expect(circuit.state('b')).to.equal('open');
  });

  it('lets one probe through after the first pause; its success closes the circuit with a clean record', () => {
    const circuit = breakers();
    record(circuit, 'xxxxx');
    now += firstPauseMs - 1;
    expect(circuit.allow('b')).to.equal(false);
    now += 1;
    expect(circuit.state('b')).to.equal('half_open');
    expect(circuit.allow('b')).to.equal(true);
    expect(circuit.allow('b'), 'a second call while the probe runs').to.equal(false);
    circuit.recordSuccess('b');
    expect(circuit.state('b')).to.equal('closed');
    record(circuit, 'xxxx');
    expect(circuit.state('b'), 'the failures before the pause are forgotten').to.equal('closed');
  });

  it('doubles the pause while probes fail, up to the longest, and starts over after a success', () => {
    const circuit = breakers();
    record(circuit, 'xxxxx');
    let pause = firstPauseMs;
    for (let probe = 0; probe < 6; probe += 1) {
      now += pause;
      expect(circuit.allow('b'), `probe ${probe + 1}`).to.equal(true);
      circuit.recordFailure('b');
      pause = Math.min(pause * 2, maxPauseMs);
      now += pause - 1;
      expect(circuit.state('b'), `paused ${pause} ms after probe ${probe + 1}`).to.equal('open');
      now += 1;
      expect(circuit.state('b')).to.equal('half_open');
      now -= pause;
    }
    expect(pause).to.equal(maxPauseMs);
    now += pause;
    expect(circuit.allow('b')).to.equal(true);
    circuit.recordSuccess('b');
    record(circuit, 'xxxxx');
    now += firstPauseMs;
    expect(circuit.state('b'), 'the first pause again').to.equal('half_open');
  });

  it('closes when a call sent before the pause answers well', () => {
    const circuit = breakers();
    record(circuit, 'xxxxx');
    circuit.recordSuccess('b');
    expect(circuit.state('b')).to.equal('closed');
  });

  it('counts the calls that fail together as one failure: a stall that times out a burst pauses no one', () => {
    const circuit = breakers();
    // Thirteen leads ping the buyer within 50 ms; a stall times every one of them out 900 ms later.
    const sentAt = now;
    now += 900;
    for (let call = 0; call < 13; call += 1) circuit.recordFailure('b', sentAt + call * 4);
    expect(circuit.state('b')).to.equal('closed');
    // Calls sent after that failure was seen are new evidence: a buyer that keeps failing is paused.
    for (let call = 0; call < 4; call += 1) {
      now += 1000;
      circuit.recordFailure('b', now - 900);
    }
    expect(circuit.state('b'), 'five episodes').to.equal('open');
  });
});
