import { expect } from 'chai';
import { CircuitBreakers } from '../../../services/distribution/src/buyers/circuit-breaker.js';

describe('CircuitBreakers', () => {
  let now: number;
  const breakers = () => new CircuitBreakers({ failureThreshold: 3, coolDownMs: 1000, now: () => now });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('stays closed through fewer failures in a row than the threshold, and a success resets the count', () => {
    const circuit = breakers();
    circuit.recordFailure('b');
    circuit.recordFailure('b');
    circuit.recordSuccess('b');
    circuit.recordFailure('b');
    circuit.recordFailure('b');
    expect(circuit.state('b')).to.equal('closed');
    expect(circuit.allow('b')).to.equal(true);
  });

  it('opens at the threshold and refuses calls until the cool-down has passed', () => {
    const circuit = breakers();
    for (let i = 0; i < 3; i++) circuit.recordFailure('b');
    expect(circuit.state('b')).to.equal('open');
    expect(circuit.allow('b')).to.equal(false);
    now += 999;
    expect(circuit.allow('b')).to.equal(false);
    expect(circuit.state('other')).to.equal('closed');
  });

  it('lets one probe through after the cool-down; its success closes the circuit', () => {
    const circuit = breakers();
    for (let i = 0; i < 3; i++) circuit.recordFailure('b');
    now += 1000;
    expect(circuit.state('b')).to.equal('half_open');
    expect(circuit.allow('b')).to.equal(true);
    expect(circuit.allow('b'), 'a second call while the probe runs').to.equal(false);
    circuit.recordSuccess('b');
    expect(circuit.state('b')).to.equal('closed');
  });

  it('opens again at once when the probe fails', () => {
    const circuit = breakers();
    for (let i = 0; i < 3; i++) circuit.recordFailure('b');
    now += 1000;
    expect(circuit.allow('b')).to.equal(true);
    circuit.recordFailure('b');
    expect(circuit.state('b')).to.equal('open');
    now += 1000;
    expect(circuit.allow('b')).to.equal(true);
  });
});
