import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { durationJson, jsonOutput, messageJson } from '@leadflow/cli/src/json-output';
import { TreeSettings } from '@leadflow/proto/leadflow/admin/v1/admin';
import { LeadRecord, ListLeadsResponse } from '@leadflow/proto/leadflow/admin/v1/leads';
import { expect } from 'chai';
import { REPOSITORY_ROOT } from '../../support/workspaces.js';

describe("the CLI's --json: every field of a message, durations as the proto JSON mapping writes them", () => {
  it('writes seconds with 0, 3, 6 or 9 fractional digits, then s', () => {
    expect(durationJson({ seconds: 1, nanos: 910_000_000 })).to.equal('1.910s');
    expect(durationJson({ seconds: 0, nanos: 450_000_000 })).to.equal('0.450s');
    expect(durationJson({ seconds: 2, nanos: 0 })).to.equal('2s');
    expect(durationJson({ seconds: 0, nanos: 0 })).to.equal('0s');
    expect(durationJson({ seconds: 0, nanos: 450_000 })).to.equal('0.000450s');
    expect(durationJson({ seconds: 3, nanos: 1 })).to.equal('3.000000001s');
    expect(durationJson({ seconds: -1, nanos: -250_000_000 })).to.equal('-1.250s');
    expect(durationJson({ seconds: 0, nanos: -5_000_000 })).to.equal('-0.005s');
  });

  it("turns every Duration of a message's toJSON into that string, nested and in lists, and nothing else", () => {
    const settings = TreeSettings.toJSON({
      routing: 1,
      pingWindow: { seconds: 1, nanos: 910_000_000 },
      tiers: [{ tier: 2, pingWindow: { seconds: 0, nanos: 450_000_000 } }],
    });
    expect(JSON.parse(jsonOutput({ effective: settings, count: 2 }))).to.deep.equal({
      effective: {
        routing: 'ROUTING_MODE_STRICT_TIERS',
        pingWindow: '1.910s',
        tiers: [{ tier: 2, pingWindow: '0.450s' }],
      },
      count: 2,
    });
  });

  it("puts back the empty lists and maps ts-proto's toJSON leaves out, at every depth, and only those", () => {
    const page = ListLeadsResponse.fromPartial({ leads: [{ leadId: 'lead_1', fields: { state: 'CA' } }] });
    const json = messageJson(ListLeadsResponse, page) as { leads: Record<string, unknown>[] };
    expect(json.leads[0]).to.deep.include({ leadId: 'lead_1', fields: { state: 'CA' }, tracking: {}, attempts: [] });
    expect(json.leads[0]).not.to.have.property('leadReturn');
    expect(json.leads[0]).not.to.have.property('createTime');
    expect(messageJson(ListLeadsResponse, ListLeadsResponse.create())).to.deep.equal({ leads: [], nextPageToken: '' });
  });

  // The string form is chosen by shape: it holds while a Duration is the only {seconds, nanos} the CLI prints.
  it('holds because no leadflow message has a field named seconds or nanos, and Timestamps print as strings', () => {
    const protoDir = path.join(REPOSITORY_ROOT, 'proto/leadflow');
    const protos = readdirSync(protoDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.proto'),
    );
    expect(protos).to.not.be.empty;
    for (const file of protos)
      expect(readFileSync(path.join(protoDir, file), 'utf8'), file).to.not.match(/^\s*\w+\s+(seconds|nanos)\s*=/m);
    const record = LeadRecord.toJSON(LeadRecord.fromPartial({ createTime: new Date(0) })) as { createTime: unknown };
    expect(record.createTime).to.equal('1970-01-01T00:00:00.000Z');
  });
});
