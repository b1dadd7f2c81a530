import { describe, expect, it } from '@jest/globals';
import { apiUrlOf } from './api-url.js';

describe('the service address the feedback command takes', () => {
  it('takes https anywhere, and http on this machine only', () => {
    expect(apiUrlOf('https://feedback.example.com')).toBe('https://feedback.example.com');
    expect(apiUrlOf('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(apiUrlOf('http://localhost:3000')).toBe('http://localhost:3000');
  });

  it('refuses plain http to another host, which would carry the password in the clear', () => {
    expect(() => apiUrlOf('http://feedback.example.com')).toThrow(/use https/);
    expect(() => apiUrlOf('not a url')).toThrow(/as a URL/);
  });
});
