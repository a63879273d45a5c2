import { LEAD_FIELDS, REQUIRED_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { testGateway } from '../../support/gateway.js';
import { ScriptedDistribution } from '../../support/scripted-distribution.js';

describe('gateway: health', () => {
  it('is live, and ready while the distribution service answers', async () => {
    const distribution = new ScriptedDistribution();
    await distribution.start();
    const app = testGateway(distribution.address);
    try {
      const live = await app.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).to.equal(200);
      expect(live.json()).to.deep.equal({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).to.equal(200);
      expect(ready.json()).to.deep.equal({ status: 'ok' });
      expect(distribution.resolveCalls).to.deep.equal(['']);
    } finally {
      await app.close();
      distribution.stop();
    }
  });

  it('is live but not ready when the distribution service is stopped', async () => {
    const distribution = new ScriptedDistribution();
    await distribution.start();
    distribution.stop();
    const app = testGateway(distribution.address);
    try {
      expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).to.equal(200);
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).to.equal(503);
      expect(ready.headers['content-type']).to.match(/^application\/json/);
      expect(ready.json()).to.include({ status: 'error' });
    } finally {
      await app.close();
    }
  });

  it('asks the distribution service at most once a second', async () => {
    const distribution = new ScriptedDistribution();
    await distribution.start();
    const app = testGateway(distribution.address);
    try {
      await Promise.all([1, 2, 3].map(() => app.inject({ method: 'GET', url: '/health/ready' })));
      await app.inject({ method: 'GET', url: '/health/ready' });
      expect(distribution.resolveCalls).to.have.length(1);
    } finally {
      await app.close();
      distribution.stop();
    }
  });
});

describe('gateway: GET /openapi.json', () => {
  let app: FastifyInstance;
  before(() => {
    app = testGateway('127.0.0.1:1');
  });
  after(() => app.close());

  it('serves an OpenAPI 3.1 JSON document of the intake endpoint', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).to.equal(200);
    expect(response.headers['content-type']).to.match(/^application\/json/);
    const document = JSON.parse(response.body);
    expect(document.openapi).to.equal('3.1.0');
    const post = document.paths['/api/intake/{webmasterKey}'].post;
    expect(Object.keys(post.responses)).to.have.members([
      '200',
      '400',
      '401',
      '408',
      '413',
      '415',
      '417',
      '429',
      '431',
      '500',
      '503',
      '504',
    ]);
    expect(post.responses['429'].headers).to.have.property('Retry-After');
    expect(post.responses['200'].headers).to.have.keys('RateLimit-Policy', 'RateLimit');
    expect(post.description).to.include('Retry');
    expect(document.paths['/api/intake/{webmasterKey}'].description).to.include('405 with Allow: POST');
    expect(document.paths['/api/intake/{webmasterKey}/leads/{clickid}'].description).to.include(
      '405 with Allow: GET, HEAD',
    );
    expect(document.components.responses.MethodNotAllowed.headers).to.have.property('Allow');
  });

  it('describes every lead field as a string and lists the required ones', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const lead = document.components.schemas.Lead;
    expect(Object.keys(lead.properties)).to.deep.equal([...LEAD_FIELDS]);
    expect(lead.required).to.deep.equal([...REQUIRED_LEAD_FIELDS]);
    for (const field of LEAD_FIELDS) {
      expect(lead.properties[field].type, field).to.equal('string');
      expect(lead.properties[field].description, field).to.be.a('string');
    }
  });

  it('resolves every $ref inside the document', async () => {
    const body = (await app.inject({ method: 'GET', url: '/openapi.json' })).body;
    const document = JSON.parse(body);
    for (const [, ref] of body.matchAll(/"\$ref":"([^"]+)"/g)) {
      const target = ref!
        .slice(2)
        .split('/')
        .reduce(
          (node: Record<string, unknown> | undefined, part) => node?.[part] as Record<string, unknown> | undefined,
          document,
        );
      expect(target, ref).to.be.ok;
    }
  });

  it('serves no HTML', async () => {
    for (const url of ['/', '/docs', '/documentation', '/openapi.html']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.headers['content-type'], url).to.match(/^application\/json/);
    }
  });
});
