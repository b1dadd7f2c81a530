import { describe, expect, it } from '@jest/globals';
import { ContractViolation, defineContract, domainEventContract, requiredText } from './index.js';

const event = {
  id: '0b7f6a2e-4d0e-4c39-9f4c-8e9a0e1d2c3b',
  event: 'suggestion.created',
  created_at: '2026-11-22T10:00:00.000Z',
  app: { id: 7, public_key: 'pk_live_abc' },
  data: {
    suggestion: {
      id: 1,
      title: 'Dark mode',
      body: null,
      status: 'open',
      author: { external_id: 'u-1', name: 'Ada' },
      comment_count: 0,
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
    },
    author: { external_id: 'u-1', name: 'Ada' },
    sender: { type: 'app_user', external_id: 'u-1', name: 'Ada' },
  },
};

describe('contracts', () => {
  it('accepts a valid domain event and returns it typed', () => {
    expect(domainEventContract.parse(event).app.id).toBe(7);
  });

  it('names the offending field of an invalid message', () => {
    const invalid = { ...event, app: { id: 'seven', public_key: 'pk_live_abc' } };
    expect(() => domainEventContract.parse(invalid)).toThrow(ContractViolation);
    try {
      domainEventContract.parse(invalid);
    } catch (error) {
      expect((error as ContractViolation).violations[0]?.field).toBe('/app/id');
    }
  });

  it('names a missing required field as required', () => {
    const { app: _app, ...withoutApp } = event;
    try {
      domainEventContract.parse(withoutApp);
      throw new Error('expected a violation');
    } catch (error) {
      expect((error as ContractViolation).violations).toContainEqual({ field: '/app', message: 'is required' });
    }
  });

  it('refuses required text that is white space alone, saying so', () => {
    const named = defineContract('named', { type: 'object', required: ['name'], properties: { name: requiredText(10) } } as const);
    expect(named.parse({ name: ' Ada ' })).toEqual({ name: ' Ada ' });
    for (const blank of ['', ' ', '\t\n', '\u00a0', '\u3000']) {
      expect(named.is({ name: blank })).toBe(false);
    }
    try {
      named.parse({ name: '  ' });
      throw new Error('expected a violation');
    } catch (error) {
      expect((error as ContractViolation).violations).toEqual([{ field: '/name', message: 'must not be blank' }]);
    }
  });

  it('refuses a member sender that carries an external id', () => {
    const invalid = { ...event, data: { ...event.data, sender: { type: 'member', external_id: 'x', name: 'M' } } };
    expect(domainEventContract.is(invalid)).toBe(false);
  });

  it("checks data against its event's schema", () => {
    expect(domainEventContract.is({ ...event, event: 'ticket.created' })).toBe(false);
    const { suggestion: _suggestion, ...withoutSuggestion } = event.data;
    expect(domainEventContract.is({ ...event, data: withoutSuggestion })).toBe(false);
  });

  it('refuses an unknown event name', () => {
    expect(domainEventContract.is({ ...event, event: 'suggestion.deleted' })).toBe(false);
  });
});
