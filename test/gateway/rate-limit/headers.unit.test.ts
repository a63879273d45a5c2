import { rateLimitHeaders } from '@leadflow/gateway/src/rate-limit/index';
import { expect } from 'chai';

describe('rateLimitHeaders', () => {
  it('advertises the policy and what is left while requests are allowed', () => {
    const headers = rateLimitHeaders({ allowed: true, limit: 60, remaining: 59, resetSeconds: 0, windowSeconds: 60 });
    expect(headers).to.deep.equal({
      'RateLimit-Policy': '"default";q=60;w=60',
      RateLimit: '"default";r=59;t=0',
    });
  });

  it('says when the last slot frees up once the window is full', () => {
    const headers = rateLimitHeaders({ allowed: true, limit: 100, remaining: 0, resetSeconds: 42, windowSeconds: 60 });
    expect(headers).to.deep.equal({
      'RateLimit-Policy': '"default";q=100;w=60',
      RateLimit: '"default";r=0;t=42',
    });
  });

  it('adds Retry-After only to a denial', () => {
    const headers = rateLimitHeaders({ allowed: false, limit: 60, remaining: 0, resetSeconds: 17, windowSeconds: 60 });
    expect(headers).to.deep.equal({
      'RateLimit-Policy': '"default";q=60;w=60',
      RateLimit: '"default";r=0;t=17',
      'Retry-After': '17',
    });
  });
});
